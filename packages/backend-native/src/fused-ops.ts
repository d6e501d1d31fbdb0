/**
 * Fused ops with their gradients, on the custom kernels of this backend when the running
 * backend has them and on plain tfjs ops otherwise (identical maths). This is the reference
 * for core's layers (core cannot import this package: it would check
 * `tf.getKernel(FUSED_KERNELS.x, tf.getBackend())` and call the kernels the same way).
 * Shapes: x [..., C], gamma/beta [C]; AdamW on any shape.
 */
import type * as tfc from '@tensorflow/tfjs-core';
import { FUSED_KERNELS } from './fused-names.js';

type Tf = typeof tfc;
type Tensor = tfc.Tensor;

export interface AdamWStep {
  lr: number;
  beta1: number;
  beta2: number;
  eps: number;
  /** Decoupled weight decay (0: plain Adam). */
  weightDecay: number;
  /** 1-based update count, for the bias corrections 1 − β^t. */
  step: number;
}

export interface FusedOps {
  /** 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))). [...] → [...] */
  geluTanh(x: Tensor): Tensor;
  /** (x − mean) / sqrt(var + eps) · gamma + beta over the last axis. [..., C] → [..., C] */
  layerNorm(x: Tensor, gamma: Tensor, beta: Tensor, eps: number): Tensor;
  /** softmax(scale·x + bias) over the last axis (attention probabilities); bias broadcasts to x. [..., S] → [..., S] */
  scaledMaskedSoftmax(x: Tensor, bias: Tensor, scale: number): Tensor;
  /** One AdamW update (no gradient); returns the new [param, m, v]. */
  adamW(param: Tensor, m: Tensor, v: Tensor, grad: Tensor, o: AdamWStep): [Tensor, Tensor, Tensor];
}

export function fusedOps(tf: Tf): FusedOps {
  const has = (kernel: string) => tf.getKernel(kernel, tf.getBackend()) !== undefined;
  const lnByEps = new Map<number, (x: Tensor, g: Tensor, b: Tensor) => Tensor>();
  const fusedLayerNorm = (eps: number) => {
    let f = lnByEps.get(eps);
    if (!f) {
      f = tf.customGrad(((x: Tensor, gamma: Tensor, beta: Tensor, save: tfc.GradSaveFunc) => {
        const [y, mean, rstd] = tf.engine().runKernel(FUSED_KERNELS.layerNorm, { x, gamma, beta }, { eps }) as Tensor[];
        save([x, gamma, mean, rstd]);
        return {
          value: y,
          gradFunc: (dy: Tensor | Tensor[], saved: Tensor[]) => {
            const [sx, sg, sm, sr] = saved;
            return tf.engine().runKernel(FUSED_KERNELS.layerNormGrad, { dy: dy as Tensor, x: sx, gamma: sg, mean: sm, rstd: sr }) as Tensor[];
          },
        };
      }) as unknown as Parameters<Tf["customGrad"]>[0]) as unknown as (x: Tensor, g: Tensor, b: Tensor) => Tensor;
      lnByEps.set(eps, f);
    }
    return f;
  };
  return {
    geluTanh(x) {
      if (has(FUSED_KERNELS.geluTanh)) return tf.engine().runKernel(FUSED_KERNELS.geluTanh, { x }) as Tensor;
      return tf.tidy(() => tf.mul(tf.mul(x, 0.5), tf.add(tf.tanh(tf.mul(tf.add(x, tf.mul(tf.mul(tf.mul(x, x), x), 0.044715)), Math.sqrt(2 / Math.PI))), 1)));
    },
    layerNorm(x, gamma, beta, eps) {
      if (has(FUSED_KERNELS.layerNorm)) return fusedLayerNorm(eps)(x, gamma, beta);
      return tf.tidy(() => {
        const { mean, variance } = tf.moments(x, -1, true);
        return tf.add(tf.mul(tf.mul(tf.sub(x, mean), tf.rsqrt(tf.add(variance, eps))), gamma), beta);
      });
    },
    scaledMaskedSoftmax(x, bias, scale) {
      if (has(FUSED_KERNELS.scaledMaskedSoftmax)) return tf.engine().runKernel(FUSED_KERNELS.scaledMaskedSoftmax, { x, bias }, { scale }) as Tensor;
      return tf.tidy(() => tf.softmax(tf.add(tf.mul(x, scale), bias)));
    },
    adamW(param, m, v, grad, o) {
      const c1 = 1 - Math.pow(o.beta1, o.step);
      const c2 = 1 - Math.pow(o.beta2, o.step);
      if (has(FUSED_KERNELS.adamW)) {
        const attrs = { lr: o.lr, beta1: o.beta1, beta2: o.beta2, eps: o.eps, weightDecay: o.weightDecay, c1, c2 };
        return tf.engine().runKernel(FUSED_KERNELS.adamW, { param, m, v, grad }, attrs) as unknown as [Tensor, Tensor, Tensor];
      }
      return tf.tidy(() => {
        const m1 = tf.add(tf.mul(m, o.beta1), tf.mul(grad, 1 - o.beta1));
        const v1 = tf.add(tf.mul(v, o.beta2), tf.mul(tf.mul(grad, grad), 1 - o.beta2));
        let update = tf.div(tf.div(m1, c1), tf.add(tf.sqrt(tf.div(v1, c2)), o.eps));
        if (o.weightDecay > 0) update = tf.add(update, tf.mul(param, o.weightDecay));
        return [tf.sub(param, tf.mul(update, o.lr)), m1, v1] as [Tensor, Tensor, Tensor];
      });
    },
  };
}
