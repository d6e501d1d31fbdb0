/**
 * BatchMatMul and _FusedMatMul through OpenBLAS sgemm, every transpose variant.
 * a [...batchA, M, K] (or [..., K, M] with transposeA), b [...batchB, K, N] (or [..., N, K]);
 * batch dims broadcast when one side has a batch of 1 (the cpu backend's rule).
 */
import { broadcast_util, type TensorInfo } from '@tensorflow/tfjs-core';
import { attr, type KernelArgs, type KernelContext, type NativeKernel, nativeOf, sizeOf } from './context.js';
import { applyActivation } from './elementwise.js';

/** Native product, or undefined when the dtypes or shapes need the cpu kernel (which also reports errors). */
export function nativeMatMul(
  args: KernelArgs,
  a: TensorInfo,
  b: TensorInfo,
  transposeA: boolean,
  transposeB: boolean,
): TensorInfo | undefined {
  const be = nativeOf(args);
  const av = be.f32(a);
  const bv = be.f32(b);
  if (!av || !bv || a.shape.length < 2 || b.shape.length < 2) return undefined;
  const ra = a.shape.length;
  const rb = b.shape.length;
  const M = transposeA ? a.shape[ra - 1] : a.shape[ra - 2];
  const K = transposeA ? a.shape[ra - 2] : a.shape[ra - 1];
  const K2 = transposeB ? b.shape[rb - 1] : b.shape[rb - 2];
  const N = transposeB ? b.shape[rb - 2] : b.shape[rb - 1];
  if (K !== K2) return undefined;
  const outerA = a.shape.slice(0, -2);
  const outerB = b.shape.slice(0, -2);
  const batchA = sizeOf(outerA);
  const batchB = sizeOf(outerB);
  if (batchA !== batchB && batchA !== 1 && batchB !== 1) return undefined;
  let outer: number[];
  try {
    outer = broadcast_util.assertAndGetBroadcastShape(outerA, outerB);
  } catch {
    return undefined;
  }
  const out = be.allocF32(Math.max(batchA, batchB) * M * N);
  be.addon.matmul(av, bv, out, batchA, batchB, M, N, K, transposeA, transposeB);
  return be.outF32([...outer, M, N], out);
}

export function matmulKernels(ctx: KernelContext): NativeKernel[] {
  const cpuBatch = ctx.fallback('BatchMatMul');
  const cpuFused = ctx.fallback('_FusedMatMul');
  return [
    {
      kernelName: 'BatchMatMul',
      kernelFunc: (args) => {
        const { a, b } = args.inputs;
        return (
          nativeMatMul(args, a, b, attr<boolean>(args, 'transposeA'), attr<boolean>(args, 'transposeB')) ??
          cpuBatch(args)
        );
      },
    },
    {
      kernelName: '_FusedMatMul',
      kernelFunc: (args) => {
        const { a, b, bias, preluActivationWeights } = args.inputs;
        const activation = attr<string>(args, 'activation') ?? 'linear';
        const be = nativeOf(args);
        if (activation === 'prelu' && (!preluActivationWeights || !be.f32(preluActivationWeights)))
          return cpuFused(args);
        if (bias && !be.f32(bias)) return cpuFused(args);
        const prod = nativeMatMul(args, a, b, attr<boolean>(args, 'transposeA'), attr<boolean>(args, 'transposeB'));
        if (!prod) return cpuFused(args);
        return applyActivation(
          ctx,
          args,
          prod,
          bias,
          activation,
          attr<number>(args, 'leakyreluAlpha'),
          preluActivationWeights,
        );
      },
    },
  ];
}
