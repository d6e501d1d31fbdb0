/**
 * The two fixes that make the wasm backend fit for training (docs/engineering-notes.md §5):
 *  1. a BatchMatMul gradient that, for rank-2 operands, computes every transposed product as an
 *     explicit transpose followed by a plain matMul (the flagged kernel is 9–14× slower on wasm);
 *  2. an `UnsortedSegmentSum` kernel for wasm — the gradient of `tf.gather`, i.e. of embedding
 *     lookups — which wasm lacks.
 * Applied by `initBackend()` only when wasm is selected; importing this module registers nothing.
 */
import * as tf from '@tensorflow/tfjs-core';
import { matMulT } from './matmul.js';

let applied = false;

export function applyWasmFixes(): void {
  if (applied) return;
  registerBatchMatMulGradient();
  registerWasmUnsortedSegmentSum();
  applied = true;
}

function registerBatchMatMulGradient(): void {
  tf.registerGradient({
    kernelName: 'BatchMatMul',
    inputsToSave: ['a', 'b'],
    gradFunc: (dy: tf.Tensor | tf.Tensor[], saved: tf.Tensor[], attrs: tf.NamedAttrMap) => {
      const g = dy as tf.Tensor;
      const [a, b] = saved;
      const { transposeA, transposeB } = attrs as unknown as { transposeA: boolean; transposeB: boolean };
      // C = op(A)·op(B): dA and dB for the four flag combinations.
      if (!transposeA && !transposeB)
        return { a: () => matMulT(g, b, false, true), b: () => matMulT(a, g, true, false) };
      if (!transposeA && transposeB)
        return { a: () => matMulT(g, b, false, false), b: () => matMulT(g, a, true, false) };
      if (transposeA && !transposeB)
        return { a: () => matMulT(b, g, false, true), b: () => matMulT(a, g, false, false) };
      return { a: () => matMulT(b, g, true, true), b: () => matMulT(g, a, true, true) };
    },
  });
}

interface WasmBackendLike {
  typedArrayFromHeap(t: tf.TensorInfo): Float32Array | Int32Array | Uint8Array;
  makeOutput(shape: number[], dtype: tf.DataType): tf.TensorInfo;
}

function registerWasmUnsortedSegmentSum(): void {
  if (tf.getKernel('UnsortedSegmentSum', 'wasm')) return;
  tf.registerKernel({
    kernelName: 'UnsortedSegmentSum',
    backendName: 'wasm',
    kernelFunc: ({ inputs, backend, attrs }) => {
      const { x, segmentIds } = inputs as { x: tf.TensorInfo; segmentIds: tf.TensorInfo };
      const { numSegments } = attrs as unknown as { numSegments: number };
      const wasm = backend as unknown as WasmBackendLike;
      const inner = x.shape.slice(segmentIds.shape.length);
      const rowSize = inner.reduce((p, d) => p * d, 1);
      const out = wasm.makeOutput([numSegments, ...inner], x.dtype);
      const dst = wasm.typedArrayFromHeap(out);
      dst.fill(0);
      const src = wasm.typedArrayFromHeap(x);
      const ids = wasm.typedArrayFromHeap(segmentIds);
      for (let r = 0; r < ids.length; r++) {
        const seg = ids[r];
        if (seg < 0 || seg >= numSegments) continue;
        const so = r * rowSize;
        const d0 = seg * rowSize;
        for (let i = 0; i < rowSize; i++) dst[d0 + i] += src[so + i];
      }
      return out;
    },
  });
}
