/**
 * The autoencoder of ThoughtComm's identification step ("Thought Communication in Multiagent
 * Collaboration", arXiv 2510.20733; docs/method-reference.md §1.5 Eqs. 6–7): encoder f̂⁻¹: H → Ẑ and decoder
 * f̂: Ẑ → Ĥ, both MLPs. Two details the paper leaves open, fixed here:
 * - H is standardised per dimension with statistics stored inside the autoencoder (§1.15:
 *   "store the per-dimension standardisation inside the AE").
 * - The code is standardised per latent (zero mean, unit variance over the batch in training,
 *   over the training set at inference). Without it the Jacobian penalty is minimised by scaling
 *   Ẑ up and the decoder's Jacobian down, which sparsifies nothing [inferred].
 *
 * Shapes: N samples, n_h state width ("H" below), Z code width, W hidden width.
 */
import * as tf from '@tensorflow/tfjs-core';
import { tidy, uniqueVariableName, variableFrom, type Rng } from '@telepath/core';
import type { Activation, AutoencoderConfig } from './config.js';

export interface Dense {
  w: tf.Variable;
  b: tf.Variable;
}

export interface Autoencoder {
  readonly config: AutoencoderConfig;
  readonly stateDim: number;
  readonly latentDim: number;
  readonly encoder: Dense[];
  readonly decoder: Dense[];
  /** Trainable variables by name. */
  readonly params: Map<string, tf.Variable>;
  /** Per-dimension standardisation of H: [n_h] each. */
  readonly hMean: tf.Variable;
  readonly hStd: tf.Variable;
  /** Code standardisation used at inference: [Z] each (set by `fitCodeStats`). */
  readonly codeMean: tf.Variable;
  readonly codeStd: tf.Variable;
  dispose(): void;
}

/** Creates an autoencoder for states of width `stateDim`; `hStats` standardise H (from training data). */
export function createAutoencoder(
  cfg: AutoencoderConfig,
  stateDim: number,
  latentDim: number,
  hStats: { mean: Float32Array; std: Float32Array },
  rng: Rng,
): Autoencoder {
  const params = new Map<string, tf.Variable>();
  // TF.js variable names are global: prefix them per instance so several autoencoders can coexist.
  const id = uniqueVariableName('thought-comm.ae');
  const layers = (prefix: string, sizes: number[]): Dense[] =>
    sizes.slice(1).map((out, l) => {
      const inp = sizes[l];
      const init = rng.fork(`${prefix}.${l}`);
      // chosen: LeCun-normal weights (std 1/√fan_in), zero biases.
      const w = variableFrom(
        tf.tensor2d(init.normalArray(inp * out, 1 / Math.sqrt(inp)), [inp, out]),
        true,
        `${id}/${prefix}.${l}.w`,
      );
      const b = variableFrom(tf.zeros([out]), true, `${id}/${prefix}.${l}.b`);
      params.set(`${prefix}.${l}.w`, w);
      params.set(`${prefix}.${l}.b`, b);
      return { w, b };
    });
  const encoder = layers('enc', [stateDim, ...cfg.encoderHidden, latentDim]);
  const decoder = layers('dec', [latentDim, ...cfg.decoderHidden, stateDim]);
  const hMean = variableFrom(tf.tensor1d(hStats.mean), false, `${id}/h.mean`);
  const hStd = variableFrom(tf.tensor1d(hStats.std), false, `${id}/h.std`);
  const codeMean = variableFrom(tf.zeros([latentDim]), false, `${id}/code.mean`);
  const codeStd = variableFrom(tf.ones([latentDim]), false, `${id}/code.std`);
  const all = [...params.values(), hMean, hStd, codeMean, codeStd];
  return {
    config: cfg,
    stateDim,
    latentDim,
    encoder,
    decoder,
    params,
    hMean,
    hStd,
    codeMean,
    codeStd,
    dispose: () => all.forEach((v) => v.dispose()),
  };
}

/** Per-dimension mean and std of rows [N, D] stored row-major (std floored at 1e-6). */
export function columnStats(x: Float32Array, n: number, d: number): { mean: Float32Array; std: Float32Array } {
  const mean = new Float32Array(d);
  const std = new Float32Array(d);
  for (let s = 0; s < n; s++) for (let i = 0; i < d; i++) mean[i] += x[s * d + i] / n;
  for (let s = 0; s < n; s++) {
    for (let i = 0; i < d; i++) {
      const v = x[s * d + i] - mean[i];
      std[i] += (v * v) / n;
    }
  }
  for (let i = 0; i < d; i++) std[i] = Math.max(1e-6, Math.sqrt(std[i]));
  return { mean, std };
}

export function activate(a: tf.Tensor, act: Activation): tf.Tensor {
  switch (act) {
    case 'tanh':
      return tf.tanh(a);
    case 'silu':
      return tf.mul(a, tf.sigmoid(a));
    case 'leakyRelu':
      return tf.leakyRelu(a, 0.2); // third-party (§1.5): AUMEZAK "LeakyReLU(0.2)"
  }
}

/** σ'(a), written with smooth ops (no tf.where on comparisons) so it can sit inside a gradient. */
export function activationGrad(a: tf.Tensor, act: Activation): tf.Tensor {
  switch (act) {
    case 'tanh': {
      const t = tf.tanh(a);
      return tf.sub(1, tf.mul(t, t));
    }
    case 'silu': {
      const s = tf.sigmoid(a);
      return tf.mul(s, tf.add(1, tf.mul(a, tf.sub(1, s))));
    }
    case 'leakyRelu':
      return tf.add(0.2, tf.mul(0.8, tf.step(a)));
  }
}

function mlp(x: tf.Tensor2D, layers: Dense[], act: Activation): tf.Tensor2D {
  let y = x;
  layers.forEach((l, i) => {
    y = tf.add(tf.matMul(y, l.w as tf.Tensor2D), l.b) as tf.Tensor2D;
    if (i < layers.length - 1) y = activate(y, act) as tf.Tensor2D;
  });
  return y;
}

/** Standardised H: (h − mean) / std. [N, n_h] → [N, n_h] */
export function normaliseStates(ae: Autoencoder, h: tf.Tensor2D): tf.Tensor2D {
  return tidy(() => tf.div(tf.sub(h, ae.hMean), ae.hStd) as tf.Tensor2D);
}

/** Encoder output before code standardisation. [N, n_h] (standardised H) → [N, Z] */
export function encodeRaw(ae: Autoencoder, hNorm: tf.Tensor2D): tf.Tensor2D {
  return tidy(() => mlp(hNorm, ae.encoder, ae.config.activation));
}

/** Standardises a code batch with its own statistics. [N, Z] → [N, Z] */
export function standardiseBatch(e: tf.Tensor2D): tf.Tensor2D {
  return tidy(() => {
    const { mean, variance } = tf.moments(e, 0);
    return tf.div(tf.sub(e, mean), tf.sqrt(tf.add(variance, 1e-6))) as tf.Tensor2D;
  });
}

/** Decoder f̂. [N, Z] → [N, n_h] (standardised H) */
export function decode(ae: Autoencoder, z: tf.Tensor2D): tf.Tensor2D {
  return tidy(() => mlp(z, ae.decoder, ae.config.activation));
}

/** Inference encoder Ẑ = f̂⁻¹(H) with the stored code statistics. [N, n_h] (raw H) → [N, Z] */
export function encode(ae: Autoencoder, h: tf.Tensor2D): tf.Tensor2D {
  return tidy(() => tf.div(tf.sub(encodeRaw(ae, normaliseStates(ae, h)), ae.codeMean), ae.codeStd) as tf.Tensor2D);
}

/** Sets the inference code statistics from raw states [N, n_h] (e.g. the training set). */
export function fitCodeStats(ae: Autoencoder, h: tf.Tensor2D): void {
  tidy(() => {
    const { mean, variance } = tf.moments(encodeRaw(ae, normaliseStates(ae, h)), 0);
    ae.codeMean.assign(mean as tf.Tensor1D);
    ae.codeStd.assign(tf.sqrt(tf.add(variance, 1e-6)) as tf.Tensor1D);
  });
}
