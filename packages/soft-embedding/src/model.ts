/**
 * The two forward passes over an aligned batch (layout.ts), latent slots in columns P..P+K−1:
 *   soft tokens (paper A's unified baseline, arXiv 2510.00494): the slots' input embeddings are
 *     given vectors z [B, K, C] (the N_L trainable soft tokens, or a control of them); one pass.
 *   continuous thought (Coconut, arXiv 2412.06769 v1 §3): slot k receives the last hidden state
 *     (after the final LayerNorm, as GPT-2's head sees it) at the column before it, so thought 1
 *     is the state at <bot>. This needs K + 1 sequential passes that reuse the KV cache; gradients
 *     flow through every fed-back state.
 * Letters: B batch, T columns, K latent slots, C width, V vocab.
 */
import * as tf from '@tensorflow/tfjs-core';
import { tidy, type KvCache, type LmOutput, type Rng, type TinyLm } from '@telepath/core';
import type { AlignedBatch } from './layout.js';

export interface PassOptions {
  /** Dropout on (with rng) when the LM has dropout > 0. */
  training?: boolean;
  rng?: Rng;
}

/** Columns [from, from + n) of a [B, T, …] tensor. */
function cols<R extends tf.Rank>(t: tf.Tensor<R>, from: number, n: number): tf.Tensor<R> {
  const begin = t.shape.map((_, i) => (i === 1 ? from : 0));
  const size = t.shape.map((d, i) => (i === 1 ? n : d));
  return tf.slice(t, begin, size);
}

/** Last hidden state (after the final LayerNorm) at the last column: [B, C]. */
export function lastHidden(out: LmOutput): tf.Tensor2D {
  const h = out.hidden[out.hidden.length - 1]; // [B, T, C]
  const [B, T, C] = h.shape;
  return tf.reshape(tf.slice(h, [0, T - 1, 0], [B, 1, C]), [B, C]);
}

/** Runs columns [from, from + x.shape[1]) of the batch, continuing `cache` when given. */
function runColumns(
  lm: TinyLm,
  b: AlignedBatch,
  x: tf.Tensor3D,
  from: number,
  cache: KvCache | undefined,
  o: PassOptions,
): LmOutput {
  const n = x.shape[1];
  return lm.forward(x, {
    cache,
    attentionMask: cols(b.attentionMask, from, n),
    positions: cols(b.positions, from, n),
    training: o.training,
    rng: o.rng,
  });
}

/**
 * Soft-token pass: token embeddings with the K latent columns replaced by z.
 * z [B, K, C] → { logits [B, T, V], hidden L+1 × [B, T, C], cache }.
 */
export function softTokenForward(lm: TinyLm, b: AlignedBatch, z: tf.Tensor3D, o: PassOptions = {}): LmOutput {
  const K = z.shape[1];
  if (b.latentCounts.some((k) => k !== K))
    throw new Error(`softTokenForward: every row needs ${K} latent slots, got [${b.latentCounts}]`);
  return tidy(() => {
    const tok = lm.embed(b.ids); // [B, T, C]
    const [, T] = b.ids.shape;
    const P = b.latentStart;
    const parts = [cols(tok, 0, P), z, ...(P + K < T ? [cols(tok, P + K, T - P - K)] : [])].filter(
      (t) => t.shape[1] > 0,
    );
    const embeds = tf.concat(parts, 1) as tf.Tensor3D; // [B, T, C]
    return lm.forward(embeds, {
      attentionMask: b.attentionMask,
      positions: b.positions,
      training: o.training,
      rng: o.rng,
    });
  });
}

export interface ContinuousOutput {
  logits: tf.Tensor3D; // [B, T, V]
  /** Continuous thoughts as produced: thought k = last hidden state at column P + k − 1. [B, K, C] */
  thoughts: tf.Tensor3D;
  /** What the latent slots received: the thoughts, or `replace(thoughts)`. [B, K, C] */
  fed: tf.Tensor3D;
  cache: KvCache; // after column T − 1
}

/**
 * Continuous-thought pass (Coconut): prefix columns [0, P) in one pass, then one pass per latent
 * slot feeding the previous column's last hidden state, then the remaining columns. Rows with
 * fewer slots (K_b < K) keep their token embeddings in the unused slot columns.
 * With `replace` (a latent control), the produced thoughts are replaced and columns [P, T) are
 * recomputed from the prefix cache with the replaced ones in the slots.
 */
export function continuousForward(
  lm: TinyLm,
  b: AlignedBatch,
  o: PassOptions & { replace?: (z: tf.Tensor3D) => tf.Tensor3D } = {},
): ContinuousOutput {
  const P = b.latentStart;
  if (P < 1) throw new Error('continuousForward: latent slots need a prefix before them (the prompt and <bot>)');
  return tidy(() => {
    const [B, T] = b.ids.shape;
    const C = lm.config.width;
    const K = Math.max(0, ...b.latentCounts);
    const tok = lm.embed(b.ids); // [B, T, C]
    const use = tf.tensor3d(
      b.latentCounts.flatMap((kb) => Array.from({ length: K }, (_, k) => (k < kb ? 1 : 0))),
      [B, K, 1],
    ); // [B, K, 1]
    const mix = (z: tf.Tensor3D, k: number, n: number) => {
      const u = cols(use, k, n); // [B, n, 1]
      return tf.add(tf.mul(u, z), tf.mul(tf.sub(1, u), cols(tok, P + k, n))) as tf.Tensor3D; // [B, n, C]
    };
    const first = runColumns(lm, b, cols(tok, 0, P), 0, undefined, o);
    const logits: tf.Tensor3D[] = [first.logits];
    let cache = first.cache;
    let h = lastHidden(first); // [B, C]
    const produced: tf.Tensor2D[] = [];
    for (let k = 0; k < K; k++) {
      produced.push(h);
      const out = runColumns(lm, b, mix(tf.expandDims(h, 1) as tf.Tensor3D, k, 1), P + k, cache, o);
      logits.push(out.logits);
      cache = out.cache;
      h = lastHidden(out);
    }
    const thoughts = (K > 0 ? tf.stack(produced, 1) : tf.zeros([B, 0, C])) as tf.Tensor3D; // [B, K, C]
    if (o.replace && K > 0) {
      const fed = o.replace(thoughts); // [B, K, C]
      const tail = tf.concat([mix(fed, 0, K), ...(P + K < T ? [cols(tok, P + K, T - P - K)] : [])], 1) as tf.Tensor3D;
      const out = runColumns(lm, b, tail, P, first.cache, o);
      return { logits: tf.concat([first.logits, out.logits], 1) as tf.Tensor3D, thoughts, fed, cache: out.cache };
    }
    if (P + K < T) {
      const out = runColumns(lm, b, cols(tok, P + K, T - P - K), P + K, cache, o);
      logits.push(out.logits);
      cache = out.cache;
    }
    return { logits: tf.concat(logits, 1) as tf.Tensor3D, thoughts, fed: thoughts, cache };
  });
}
