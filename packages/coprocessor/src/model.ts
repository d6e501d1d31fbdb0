/**
 * The Coprocessor: a second LM with the Base's config, initialised from the Base's weights
 * (Liu et al. 2024, arXiv 2412.17747 §3 and Fig. 4: "initialised from the pretrained weights",
 * better than from scratch), plus N_L trainable soft tokens. It reads the Base's KV cache of the
 * prompt followed by the soft tokens and hands on, at the N_L soft positions, either its
 * last-layer states z (Liu: "N_L final-layer hidden states at the soft positions") or its
 * per-layer keys and values (paper A, arXiv 2510.00494, H1).
 * Letters: B batch, K = N_L latent positions, S prompt keys, C width, H heads, D head width, L layers.
 */
import * as tf from '@tensorflow/tfjs-core';
import { TinyLm, tidy, variableFrom, type KvCache, type LayerKv, type Rng } from '@telepath/core';
import type { Injection } from './config.js';

export interface Coprocessor {
  lm: TinyLm;
  /** [K, C] soft tokens, the Coprocessor's inputs after the Base's prompt cache. */
  soft: tf.Variable;
  /**
   * Coprocessor parameters on the path to what this injection hands on, soft tokens included;
   * the others (the unused LM head's token table; for KV also the last layer's query, output,
   * MLP and the final norm) can never receive a gradient and are not trained.
   */
  used: Map<string, tf.Variable>;
}

export interface CoprocessorOutput {
  z: tf.Tensor3D; // [B, K, C] last-layer states (after the final LayerNorm) at the soft positions
  kv: LayerKv[]; // L × {k, v} [B, H, K, D] at the soft positions
}

let counter = 0;

/** Names of the Coprocessor parameters that influence the latents of `injection`. */
export function usedParamNames(names: Iterable<string>, layers: number, injection: Injection): string[] {
  const last = `h${layers - 1}.`;
  const kvOnly = (n: string) => n.startsWith('lnf.') || (n.startsWith(last) && !/\.(ln1\.[gb]|attn\.[wb][kv])$/.test(n));
  return [...names].filter((n) => n !== 'wte' && !(injection === 'kv' && kvOnly(n)));
}

/** The Coprocessor of `base` (weights copied) with K soft tokens drawn from N(0, std²). */
export function createCoprocessor(base: TinyLm, K: number, injection: Injection, softInitStd: number, rng: Rng): Coprocessor {
  if (!Number.isInteger(K) || K < 1) throw new Error(`coprocessor: latentTokens must be a positive integer, got ${K}`);
  const lm = new TinyLm(base.config, rng.fork('lm'), 'copro');
  for (const [name, v] of base.params) lm.params.get(name)!.assign(v);
  const C = base.config.width;
  // N(0, std²) draws; the Base's embedding std stays a tensor (no read back, so webgpu needs no synchronous read).
  const normals = rng.fork('soft').normalArray(K * C, softInitStd > 0 ? softInitStd : 1);
  const init = tf.tidy(() => (softInitStd > 0 ? tf.tensor2d(normals, [K, C]) : tf.mul(tf.tensor2d(normals, [K, C]), embeddingStd(base)))); // [K, C]
  const soft = variableFrom(init, true, `copro.softEmbeds#${counter++}`);
  const used = new Map<string, tf.Variable>([['softEmbeds', soft]]);
  for (const n of usedParamNames(lm.params.keys(), base.config.layers, injection)) used.set(n, lm.params.get(n)!);
  return { lm, soft, used };
}

/** Std of the Base's token-embedding table (the scale soft tokens start at by default), a scalar tensor. */
export function embeddingStd(base: TinyLm): tf.Scalar {
  return tf.tidy(() => tf.sqrt(tf.moments(base.params.get('wte')!).variance) as tf.Scalar);
}

/**
 * Runs the Coprocessor on the Base's prompt cache (keys [B, H, S, D]) and its soft tokens at
 * positions lengths[b] + 0..K−1 (right after each row's prompt). Call inside a tidy.
 */
export function runCoprocessor(cp: Coprocessor, cache: KvCache, lengths: number[]): CoprocessorOutput {
  return tidy(() => {
    const B = lengths.length;
    const [K, C] = cp.soft.shape;
    const soft = tf.mul(tf.ones([B, 1, 1]), tf.reshape(cp.soft, [1, K, C])) as tf.Tensor3D; // [B, K, C] (broadcast: cheaper than tile)
    const positions = tf.tensor2d(lengths.flatMap((n) => Array.from({ length: K }, (_, k) => n + k)), [B, K], 'int32');
    const out = cp.lm.forward(soft, { cache, positions });
    return { z: out.hidden[out.hidden.length - 1], kv: out.newKv }; // [B, K, C]; L × [B, H, K, D]
  });
}

export function disposeCoprocessor(cp: Coprocessor): void {
  cp.lm.dispose();
  cp.soft.dispose();
  cp.used.clear();
}
