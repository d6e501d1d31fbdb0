/**
 * Decoder Jacobian and the sparsity penalty of ThoughtComm ("Thought Communication in Multiagent
 * Collaboration", arXiv 2510.20733; docs/method-reference.md §1.5 Eq. 7 and the group penalty, §1.6 estimation
 * options). TF.js has reverse-mode AD only, so J is never taken with tf.grad:
 * - analytic: for the MLP decoder ĥ = W_L σ(… σ(z W_1 + b_1) …) + b_L (row-vector convention)
 *   the transposed Jacobian is Jᵀ(z) = W_1 D_1(z) W_2 D_2(z) ⋯ W_L, D_l = diag(σ'(a_l)); we push
 *   the selected rows of W_1 (latent columns of J) through the layers with batched matMuls, so it
 *   is differentiable w.r.t. the weights (through σ' too).
 * - finite differences: J e_j ≈ (f̂(z + εe_j) − f̂(z − εe_j)) / 2ε for any decoder.
 * Column sampling: K of the Z latent columns drawn uniformly without replacement; both penalties
 * are sums over latent columns, so (Z/K)·(sum over the drawn columns) is an unbiased estimate.
 *
 * Shapes: N samples, K selected latent columns, Z code width, n_h ("H") state width, A agents.
 */
import * as tf from '@tensorflow/tfjs-core';
import { tidy, type Rng } from '@telepath/core';
import type { PenaltyKind } from './config.js';
import { activate, activationGrad, decode, type Autoencoder } from './autoencoder.js';

/** One-hot selector [K, Z] of the given latent columns. */
export function columnSelector(cols: number[], Z: number): tf.Tensor2D {
  const data = new Float32Array(cols.length * Z);
  cols.forEach((j, r) => {
    if (!Number.isInteger(j) || j < 0 || j >= Z) throw new Error(`columnSelector: column ${j} outside [0, ${Z})`);
    data[r * Z + j] = 1;
  });
  return tf.tensor2d(data, [cols.length, Z]);
}

/** K distinct columns of Z, uniformly at random, sorted. */
export function sampleColumns(rng: Rng, Z: number, K: number): number[] {
  if (K <= 0 || K >= Z) return Array.from({ length: Z }, (_, j) => j);
  return rng
    .shuffle(Array.from({ length: Z }, (_, j) => j))
    .slice(0, K)
    .sort((a, b) => a - b);
}

/**
 * Exact decoder Jacobian columns, transposed: out[n, r, i] = ∂ĥ_i/∂ẑ_{cols[r]} at z[n].
 * z: [N, Z] → [N, K, n_h] (all Z columns when cols is omitted).
 */
export function decoderJacobian(ae: Autoencoder, z: tf.Tensor2D, cols?: number[]): tf.Tensor3D {
  return tidy(() => {
    const [N, Z] = z.shape;
    const cs = cols ?? Array.from({ length: Z }, (_, j) => j);
    const K = cs.length;
    const act = ae.config.activation;
    const layers = ae.decoder;
    let x: tf.Tensor2D = z; // [N, W_{l-1}] activations
    let t: tf.Tensor = tf.matMul(columnSelector(cs, Z), layers[0].w as tf.Tensor2D); // [K, W_1] rows of W_1
    for (let l = 0; l < layers.length; l++) {
      const { w, b } = layers[l];
      if (l > 0) {
        const width = t.shape[2]!;
        t = tf.reshape(tf.matMul(tf.reshape(t, [N * K, width]) as tf.Tensor2D, w as tf.Tensor2D), [N, K, w.shape[1]!]); // [N, K, W_l]
      }
      if (l === layers.length - 1) break;
      const a = tf.add(tf.matMul(x, w as tf.Tensor2D), b) as tf.Tensor2D; // [N, W_l]
      const d = tf.expandDims(activationGrad(a, act), 1); // [N, 1, W_l]
      t = l === 0 ? tf.mul(tf.expandDims(t, 0), d) : tf.mul(t, d); // [N, K, W_l]
      x = activate(a, act) as tf.Tensor2D;
    }
    if (layers.length === 1) t = tf.tile(tf.expandDims(t, 0), [N, 1, 1]); // linear decoder: J = W_1ᵀ
    return t as tf.Tensor3D;
  });
}

/** Central-difference Jacobian columns, transposed. z: [N, Z] → [N, K, n_h]. */
export function decoderJacobianFd(
  ae: Autoencoder,
  z: tf.Tensor2D,
  cols: number[] | undefined,
  eps: number,
): tf.Tensor3D {
  return tidy(() => {
    const [N, Z] = z.shape;
    const cs = cols ?? Array.from({ length: Z }, (_, j) => j);
    const K = cs.length;
    const step = tf.mul(columnSelector(cs, Z), eps); // [K, Z]
    const zz = tf.expandDims(z, 1); // [N, 1, Z]
    const plus = tf.reshape(tf.add(zz, step), [N * K, Z]) as tf.Tensor2D;
    const minus = tf.reshape(tf.sub(zz, step), [N * K, Z]) as tf.Tensor2D;
    const diff = tf.div(tf.sub(decode(ae, plus), decode(ae, minus)), 2 * eps); // [N·K, n_h]
    return tf.reshape(diff, [N, K, ae.stateDim]) as tf.Tensor3D;
  });
}

/** Indicator [n_h, A] of agent blocks: 1 where row i belongs to agent k. */
export function blockIndicator(ranges: [number, number][], H: number): tf.Tensor2D {
  const A = ranges.length;
  const data = new Float32Array(H * A);
  ranges.forEach(([s, e], k) => {
    for (let i = s; i < e; i++) data[i * A + k] = 1;
  });
  return tf.tensor2d(data, [H, A]);
}

export interface PenaltyOptions {
  kind: PenaltyKind;
  /** Agent row ranges, needed by the group norm. */
  agentRanges: [number, number][];
  /** Z, the total number of latent columns, for the Z/K rescaling. */
  latentDim: number;
  /** Weight of the group term in 'l1+group'. */
  groupWeight?: number;
}

/**
 * Penalty of Jacobian columns Jt [N, K, n_h] (transposed as returned above), rescaled by Z/K:
 * - l1: E_n (1/n_h) Σ_i Σ_j |J_nij| — the element ℓ1 of Eq. 7, per row so λ does not depend on n_h;
 * - group: (1/A) Σ_j Σ_k ‖J[·, B_k, j]‖_F / √(N·d_k) — the per-agent-block group norm of §1.5,
 *   averaged over agents instead of latents so that both terms are sums over latent columns.
 */
export function jacobianPenalty(jt: tf.Tensor3D, o: PenaltyOptions): tf.Scalar {
  return tidy(() => {
    const [N, K, H] = jt.shape;
    const scale = o.latentDim / K;
    const terms: tf.Scalar[] = [];
    if (o.kind === 'l1' || o.kind === 'l1+group') terms.push(tf.div(tf.sum(tf.abs(jt)), N * H) as tf.Scalar);
    if (o.kind === 'group' || o.kind === 'l1+group') {
      const A = o.agentRanges.length;
      const sizes = tf.tensor1d(o.agentRanges.map(([s, e]) => N * (e - s))); // [A]
      const sq = tf.sum(tf.mul(jt, jt), 0) as tf.Tensor2D; // [K, n_h]
      const perBlock = tf.div(tf.matMul(sq, blockIndicator(o.agentRanges, H)), sizes); // [K, A]
      const g = tf.div(tf.sum(tf.sqrt(tf.add(perBlock, 1e-12))), A) as tf.Scalar;
      terms.push(o.kind === 'l1+group' ? (tf.mul(g, o.groupWeight ?? 1) as tf.Scalar) : g);
    }
    return tf.mul(tf.addN(terms), scale) as tf.Scalar;
  });
}
