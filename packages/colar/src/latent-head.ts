/**
 * CoLaR's Latent Head (arXiv 2505.16552) on the LM's last hidden state (after the final
 * LayerNorm, the LM head's input): Linear(C, W) → GELU → Linear(W, W) → LayerNorm(W), then
 * mean = Linear(W, C) and log-std = Linear(W, C), a diagonal Gaussian over the next compressed
 * embedding divided by a fixed scale measured from the embedding table (the released code's
 * MODEL_EMB_STD; for a new model, the std of its input embeddings — docs/method-reference.md §5). The
 * deterministic ablation ("-DL") has no log-std layer and σ = 1e-9.
 * Letters: N rows (any leading shape), C LM width, W head width.
 */
import * as tf from '@tensorflow/tfjs-core';
import {
  gelu,
  layerNorm,
  linear,
  normalsForRows,
  uniqueVariableName,
  variableFrom,
  type HeldRows,
  type Rng,
} from '@telepath/core';
import type { HeadKind } from './config.js';

/** σ of the deterministic head, as in the released code's "-DL" variant. */
export const DETERMINISTIC_STD = 1e-9;
const LOG_2PI = Math.log(2 * Math.PI);
const LN_EPS = 1e-5; // chosen: torch's LayerNorm default

export interface LatentHead {
  kind: HeadKind;
  params: Map<string, tf.Variable>;
}

export interface HeadOutput {
  mean: tf.Tensor; // [..., C]
  logStd: tf.Tensor; // [..., C]; log(1e-9) everywhere for the deterministic head
}

/** A head for an LM of width C with hidden width W; weights normal(0, initStd), biases 0. */
export function createHead(C: number, W: number, kind: HeadKind, initStd: number, rng: Rng): LatentHead {
  const params = new Map<string, tf.Variable>();
  const add = (name: string, shape: number[], init: 'normal' | 'zeros' | 'ones') => {
    const n = shape.reduce((a, b) => a * b, 1);
    const values =
      init === 'normal' ? rng.fork(name).normalArray(n, initStd) : new Float32Array(n).fill(init === 'ones' ? 1 : 0);
    params.set(name, variableFrom(tf.tensor(values, shape, 'float32'), true, uniqueVariableName(`colar.head.${name}`)));
  };
  add('w1', [C, W], 'normal');
  add('b1', [W], 'zeros');
  add('w2', [W, W], 'normal');
  add('b2', [W], 'zeros');
  add('ln.g', [W], 'ones');
  add('ln.b', [W], 'zeros');
  add('wMean', [W, C], 'normal');
  add('bMean', [C], 'zeros');
  if (kind === 'gaussian') {
    add('wLogStd', [W, C], 'normal');
    add('bLogStd', [C], 'zeros');
  }
  return { kind, params };
}

/** Mean and log-std of the next latent (in units of the embedding scale) from hidden states h [..., C]. */
export function headForward(head: LatentHead, h: tf.Tensor): HeadOutput {
  const p = (name: string) => {
    const v = head.params.get(name);
    if (!v) throw new Error(`colar head: no parameter ${name}`);
    return v;
  };
  return tf.tidy(() => {
    const u = gelu(linear(h, p('w1'), p('b1'))); // [..., W]
    const v = layerNorm(linear(u, p('w2'), p('b2')), p('ln.g'), p('ln.b'), LN_EPS); // [..., W]
    const mean = linear(v, p('wMean'), p('bMean')); // [..., C]
    const logStd =
      head.kind === 'gaussian'
        ? linear(v, p('wLogStd'), p('bLogStd'))
        : tf.fill(mean.shape, Math.log(DETERMINISTIC_STD)); // [..., C]
    return { mean, logStd };
  });
}

/**
 * Gaussian log-density of z under N(mean, (exp(logStd)·temperature)²), averaged over the last
 * axis (one number per latent, as in the released GRPO loss): [..., C] → [...].
 */
export function gaussianLogDensity(z: tf.Tensor, mean: tf.Tensor, logStd: tf.Tensor, temperature = 1): tf.Tensor {
  return tf.tidy(() => {
    const logSigma = temperature === 1 ? logStd : tf.add(logStd, Math.log(temperature));
    const scaled = tf.mul(tf.sub(z, mean), tf.exp(tf.neg(logSigma))); // (z − μ)/σ
    const perDim = tf.neg(tf.add(tf.add(tf.mul(tf.square(scaled), 0.5), logSigma), 0.5 * LOG_2PI)); // [..., C]
    return tf.mean(perDim, -1);
  });
}

/**
 * z = μ + σ·temperature·ε with ε from `rng` (reparameterised sample) — or μ when `greedy`. [..., C]
 * `rows` (a rollout's compacted batch, μ [R, C]): the rows μ holds out of `of`; ε is drawn for all
 * `of` rows and theirs taken, so each row's sample is the one it has in the whole batch.
 */
export function sampleLatent(
  out: HeadOutput,
  temperature: number,
  rng: Rng,
  greedy: boolean,
  rows?: HeldRows,
): tf.Tensor {
  if (greedy) return tf.clone(out.mean);
  return tf.tidy(() => {
    const C = out.mean.shape[out.mean.shape.length - 1];
    const drawn = normalsForRows(rng, C, out.mean.size / C, rows);
    const eps = tf.tensor(drawn, out.mean.shape); // ε ~ N(0, I)
    return tf.add(out.mean, tf.mul(tf.mul(tf.exp(out.logStd), temperature), eps));
  });
}
