/**
 * Small differentiable building blocks of the decoder: LayerNorm, tanh-GELU, the attention
 * softmax, dropout. LayerNorm, GELU and the softmax run as one fused kernel each where the
 * backend registers it (fused.ts; the `native` backend), and as the plain ops below elsewhere:
 * the same maths, equal within float32 rounding (fused.test.ts).
 * Shapes use the glossary letters: B batch, T tokens, S key positions, H heads, C width.
 */
import * as tf from '@tensorflow/tfjs-core';
import { FUSED_KERNELS, fusedKernelFor, runFused } from './fused.js';

/** LayerNorm over the last axis: (x − mean) / sqrt(var + eps) · g + b. [..., C] → [..., C] */
export function layerNorm(x: tf.Tensor, g: tf.Tensor, b: tf.Tensor, eps: number): tf.Tensor {
  return tf.tidy(() => {
    if (fusedKernelFor(FUSED_KERNELS.layerNorm, x, true)) {
      // [y [..., C], mean [...], rstd [...]]; mean and rstd are kept only for the gradient.
      return (runFused(FUSED_KERNELS.layerNorm, { x, gamma: g, beta: b }, { eps }) as tf.Tensor[])[0];
    }
    const { mean, variance } = tf.moments(x, -1, true); // [..., 1]
    const xhat = tf.mul(tf.sub(x, mean), tf.rsqrt(tf.add(variance, eps)));
    return tf.add(tf.mul(xhat, g), b);
  });
}

const GELU_2K = 2 * Math.sqrt(2 / Math.PI);
/**
 * GPT-2's tanh approximation of GELU, 0.5·x·(1 + tanh(u)) with u = √(2/π)·(x + 0.044715·x³).
 * The plain-op path computes it through the identity 0.5·(1 + tanh(u)) = sigmoid(2u): the same
 * function, but wasm's sigmoid is ≈9× faster than its tanh (22 vs 2.5 ms on 1M values). x·x·x
 * instead of pow(x, 3). [...] → [...]
 */
export function gelu(x: tf.Tensor): tf.Tensor {
  return tf.tidy(() => {
    if (fusedKernelFor(FUSED_KERNELS.geluTanh, x, true)) return runFused(FUSED_KERNELS.geluTanh, { x }) as tf.Tensor;
    const cube = tf.mul(tf.mul(x, x), x);
    const twiceInner = tf.mul(tf.add(x, tf.mul(cube, 0.044715)), GELU_2K); // 2u
    return tf.mul(x, tf.sigmoid(twiceInner));
  });
}

/**
 * Attention probabilities softmax(scale·scores + bias) over the last axis; `bias` (0 where a key
 * is visible, −1e9 where not) broadcasts to `scores`. scores [B, H, T, S], bias [B, 1, T, S] → [B, H, T, S]
 */
export function scaledMaskedSoftmax(scores: tf.Tensor, bias: tf.Tensor, scale: number): tf.Tensor {
  return tf.tidy(() => {
    if (fusedKernelFor(FUSED_KERNELS.scaledMaskedSoftmax, scores, true) && bias.dtype === 'float32') {
      return runFused(FUSED_KERNELS.scaledMaskedSoftmax, { x: scores, bias }, { scale }) as tf.Tensor;
    }
    return tf.softmax(tf.add(tf.mul(scores, scale), bias));
  });
}

/** Inverted dropout with a seeded mask; identity when rate is 0 or seed is undefined. */
export function dropout(x: tf.Tensor, rate: number, seed: number | undefined): tf.Tensor {
  if (rate <= 0 || seed === undefined) return x;
  return tf.tidy(() => {
    const keep = tf.step(tf.sub(tf.randomUniform(x.shape, 0, 1, 'float32', seed), rate)); // 1 with probability 1 − rate
    return tf.mul(x, tf.mul(keep, 1 / (1 - rate)));
  });
}
