/**
 * Autoencoder objective of ThoughtComm ("Thought Communication in Multiagent Collaboration",
 * arXiv 2510.20733; docs/method-reference.md §1.5 Eq. 7): L = ‖H − f̂(Ẑ)‖² + λ·penalty(J_f̂(Ẑ)), Ẑ = f̂⁻¹(H).
 * The reconstruction is a mean over samples and state dimensions; the penalty (jacobian.ts) is
 * evaluated on the first `jacobianSamples` codes of the batch, exactly or on sampled columns.
 * Optional (not in the paper, `decorrelation` μ > 0): + μ·mean_{i≠j} corr(ẑ_i, ẑ_j)², which keeps two
 * codes from encoding the same thought while another thought goes unencoded (a local minimum seen
 * in 2 of 24 runs without it).
 *
 * Shapes: B batch, n_h state width, Z code width, K sampled columns.
 */
import * as tf from '@tensorflow/tfjs-core';
import { tidy } from '@telepath/core';
import type { AutoencoderConfig } from './config.js';
import { decoderJacobian, decoderJacobianFd, jacobianPenalty } from './jacobian.js';
import { decode, encodeRaw, standardiseBatch, type Autoencoder } from './autoencoder.js';

export interface LossParts {
  total: tf.Scalar;
  reconstruction: tf.Scalar;
  penalty: tf.Scalar;
}

export interface LossOptions {
  /** λ at this step (after delay and ramp). */
  lambda: number;
  agentRanges: [number, number][];
  /** Latent columns of the penalty; undefined = all (exact). */
  cols?: number[];
}

/** λ at `step`: 0 during `penaltyDelay`, then a linear ramp over `penaltyRamp` steps. */
export function lambdaAt(
  cfg: Pick<AutoencoderConfig, 'lambda' | 'penaltyDelay' | 'penaltyRamp'>,
  step: number,
): number {
  if (step < cfg.penaltyDelay) return 0;
  if (cfg.penaltyRamp <= 0) return cfg.lambda;
  return cfg.lambda * Math.min(1, (step - cfg.penaltyDelay + 1) / cfg.penaltyRamp);
}

/** Penalty of the decoder Jacobian at codes z [N, Z], with the configured estimator. */
export function penaltyAt(
  ae: Autoencoder,
  z: tf.Tensor2D,
  agentRanges: [number, number][],
  cols?: number[],
): tf.Scalar {
  return tidy(() => {
    const c = ae.config;
    const jt =
      c.jacobianMethod === 'analytic' ? decoderJacobian(ae, z, cols) : decoderJacobianFd(ae, z, cols, c.fdEpsilon); // [N, K, n_h]
    return jacobianPenalty(jt, { kind: c.penalty, agentRanges, latentDim: ae.latentDim, groupWeight: c.groupWeight });
  });
}

/** Loss on a batch of standardised states hNorm [B, n_h]. */
export function autoencoderLoss(ae: Autoencoder, hNorm: tf.Tensor2D, o: LossOptions): LossParts {
  return tidy(() => {
    const z = standardiseBatch(encodeRaw(ae, hNorm)); // [B, Z]
    const diff = tf.sub(hNorm, decode(ae, z)); // [B, n_h]
    const reconstruction = tf.mean(tf.mul(diff, diff)) as tf.Scalar;
    const mu = ae.config.decorrelation;
    const base = mu > 0 ? (tf.add(reconstruction, tf.mul(codeCorrelation(z), mu)) as tf.Scalar) : reconstruction;
    if (o.lambda === 0) return { total: base, reconstruction, penalty: tf.scalar(0) };
    const n = Math.min(ae.config.jacobianSamples, z.shape[0]);
    const zj = n < z.shape[0] ? (tf.slice(z, [0, 0], [n, z.shape[1]]) as tf.Tensor2D) : z; // [N_J, Z]
    const penalty = penaltyAt(ae, zj, o.agentRanges, o.cols);
    return { total: tf.add(base, tf.mul(penalty, o.lambda)) as tf.Scalar, reconstruction, penalty };
  });
}

/** mean_{i≠j} corr(ẑ_i, ẑ_j)² of standardised codes z [B, Z]. */
export function codeCorrelation(z: tf.Tensor2D): tf.Scalar {
  return tidy(() => {
    const [B, Z] = z.shape;
    const c = tf.div(tf.matMul(tf.transpose(z), z), B); // [Z, Z]
    const off = tf.mul(c, tf.sub(1, tf.eye(Z))); // [Z, Z]
    return tf.div(tf.sum(tf.mul(off, off)), Math.max(1, Z * (Z - 1))) as tf.Scalar;
  });
}
