/**
 * The large matrix products of the subspace analysis, on TF.js (docs/engineering-notes.md §10: ml-matrix
 * multiplies at ≈ 1 GFLOP/s, wasm-SIMD at ≈ 20–30): per-slot centred scatter matrices X̃ᵢᵀX̃ᵢ and,
 * for CKA, the squared Frobenius norms ‖X̃ᵢᵀX̃ⱼ‖²_F of every cross product. Everything downstream
 * (eigendecompositions, traces, projectors) runs in float64 JS on the small C×C results.
 * Needs a started backend: call `await initBackend()` from @telepath/core first.
 */
import * as tf from '@tensorflow/tfjs-core';
import { matMulT, tidy } from '@telepath/core';
import { checkSlots, columnMeans, type Slot } from './slots.js';

export interface SlotProducts {
  /** C, shared by all slots */
  width: number;
  /** S × [C]: column means */
  means: Float64Array[];
  /** S × [C, C] row-major: centred scatter X̃ᵢᵀX̃ᵢ (covariance × (N−1)) */
  scatter: Float64Array[];
  /** [S][S]: ‖X̃ᵢᵀX̃ⱼ‖²_F (rows matched example by example); present when `cross` was asked */
  crossSq?: number[][];
}

/** Throws a message naming the fix when no TF.js backend has been started. */
export function requireBackend(who: string): void {
  let name: string | undefined;
  try {
    name = tf.getBackend();
  } catch {
    name = undefined;
  }
  if (!name)
    throw new Error(
      `${who}: no TensorFlow.js backend is running; call \`await initBackend()\` from @telepath/core first`,
    );
}

/**
 * A slot centred in float64 and stored as float32.
 * @returns [N, C]
 */
export function centredTensor(s: Slot, mu: Float64Array = columnMeans(s)): tf.Tensor2D {
  const out = new Float32Array(s.rows * s.width);
  for (let r = 0; r < s.rows; r++) {
    const off = r * s.width;
    for (let c = 0; c < s.width; c++) out[off + c] = s.vectors[off + c] - mu[c];
  }
  return tf.tensor2d(out, [s.rows, s.width]);
}

/**
 * Sum of squares of each [C, C] block of a [C, M·C] matrix.
 * @param p [C, M·C]
 * @returns [M]
 */
function blockSquares(p: tf.Tensor2D, C: number, M: number): tf.Tensor1D {
  const rows = tf.reshape(tf.square(p), [C * M, C]); // [C·M, C]
  const perRow = tf.reshape(tf.sum(rows, 1), [C, M]); // [C, M]
  return tf.sum(perRow, 0) as tf.Tensor1D; // [M]
}

/**
 * Centred scatter matrices of every slot and, with `cross`, the squared norms of all cross products.
 * `cross` needs every slot to hold the same N (row n of each slot = example n). Reads back
 * asynchronously (one read per slot; a synchronous read fails on webgpu).
 */
export async function slotProducts(slots: readonly Slot[], o: { cross?: boolean } = {}): Promise<SlotProducts> {
  checkSlots(slots, { sameWidth: true, sameRows: o.cross, minRows: 2 });
  requireBackend('slotProducts');
  const C = slots[0].width;
  const S = slots.length;
  const means = slots.map((s) => columnMeans(s));
  if (!o.cross) {
    const scatter: Float64Array[] = [];
    for (const [i, s] of slots.entries()) {
      const m = tidy(() => {
        const x = centredTensor(s, means[i]); // [N, C]
        return matMulT(x, x, true, false); // [C, C]
      });
      try {
        scatter.push(Float64Array.from(await m.data()));
      } finally {
        m.dispose();
      }
    }
    return { width: C, means, scatter };
  }
  const N = slots[0].rows;
  const scatter: Float64Array[] = [];
  const crossSq = Array.from({ length: S }, () => new Array<number>(S).fill(0));
  const z = tidy(
    () =>
      tf.concat(
        slots.map((s, i) => centredTensor(s, means[i])),
        1,
      ) as tf.Tensor2D,
  ); // [N, S·C]
  try {
    for (let i = 0; i < S; i++) {
      const M = S - i;
      const packed = tidy(() => {
        const xi = tf.slice(z, [0, i * C], [N, C]) as tf.Tensor2D; // [N, C]
        const rest = tf.slice(z, [0, i * C], [N, M * C]) as tf.Tensor2D; // [N, M·C]
        const p = matMulT(xi, rest, true, false); // [C, M·C]: blocks X̃ᵢᵀX̃ⱼ, j ≥ i
        return tf.concat([tf.reshape(tf.slice(p, [0, 0], [C, C]), [-1]), blockSquares(p, C, M)]); // [C·C + M]: the diagonal block, then the squares
      });
      let v: Float32Array;
      try {
        v = (await packed.data()) as Float32Array;
      } finally {
        packed.dispose();
      }
      scatter.push(Float64Array.from(v.subarray(0, C * C)));
      for (let m = 0; m < M; m++) crossSq[i][i + m] = crossSq[i + m][i] = v[C * C + m];
    }
  } finally {
    z.dispose();
  }
  return { width: C, means, scatter, crossSq };
}
