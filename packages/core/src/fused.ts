/**
 * Fused kernels that a backend may register for core's hot ops — today only the `native` backend
 * of @telepath/backend-native, which registers each kernel with its gradient. Core imports no
 * backend package: it looks the kernels up by name and, where the running backend has one (and its
 * gradient, for the differentiable ones), calls it with `tf.engine().runKernel`; elsewhere the
 * callers (layers.ts, optim.ts) run the same maths in plain ops. The gradients are the ones the
 * backend registers with each kernel (not a customGrad here): tfjs evaluates those per input and
 * only for inputs on the gradient path, so e.g. the attention bias, a constant mask, never gets
 * one computed. Kernel contracts (float32 only):
 *   TelepathGeluTanh {x} → y = 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³)))
 *   TelepathLayerNorm {x [..., C], gamma [C], beta [C]} {eps} → [y [..., C], mean [...], rstd [...]]
 *   TelepathScaledMaskedSoftmax {x [..., S], bias (broadcasts to x)} {scale} → softmax(scale·x + bias)
 *   TelepathAdamW {param, m, v, grad} {lr, beta1, beta2, eps, weightDecay, c1, c2} → [param', m', v']
 */
import * as tf from '@tensorflow/tfjs-core';

/** Kernel names. Same strings as packages/backend-native/src/fused-names.ts; keep in sync (fused.test.ts checks them on native). */
export const FUSED_KERNELS = {
  geluTanh: 'TelepathGeluTanh',
  layerNorm: 'TelepathLayerNorm',
  scaledMaskedSoftmax: 'TelepathScaledMaskedSoftmax',
  adamW: 'TelepathAdamW',
} as const;
export type FusedKernel = (typeof FUSED_KERNELS)[keyof typeof FUSED_KERNELS];

let enabled = process.env.TELEPATH_FUSED !== '0';

/**
 * Turns the fused kernels on or off for this process (default on; `TELEPATH_FUSED=0` starts
 * with them off). Off, every backend runs the plain-op maths. Returns the previous setting.
 */
export function setFusedKernels(on: boolean): boolean {
  const was = enabled;
  enabled = on;
  return was;
}

/** Whether `kernel` runs fused for float32 `x` on the current backend (and has a gradient when `grad`). */
export function fusedKernelFor(kernel: FusedKernel, x: tf.Tensor, grad: boolean): boolean {
  if (!enabled || x.dtype !== 'float32') return false;
  if (tf.getKernel(kernel, tf.getBackend()) === undefined) return false;
  return !grad || tf.getGradient(kernel) !== undefined;
}

/** Which fused kernels the current backend would run (for run records and benchmarks). */
export function activeFusedKernels(): FusedKernel[] {
  if (!enabled) return [];
  return Object.values(FUSED_KERNELS).filter(
    (k) =>
      tf.getKernel(k, tf.getBackend()) !== undefined && (k === FUSED_KERNELS.adamW || tf.getGradient(k) !== undefined),
  );
}

/** Runs a fused kernel (callers check `fusedKernelFor` first). */
export function runFused(
  kernel: FusedKernel,
  inputs: Record<string, tf.Tensor>,
  attrs: Record<string, number> = {},
): tf.Tensor | tf.Tensor[] {
  return tf.engine().runKernel(kernel, inputs as tf.NamedTensorMap, attrs as unknown as tf.NamedAttrMap) as
    tf.Tensor | tf.Tensor[];
}
