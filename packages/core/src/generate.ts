/**
 * Decoding with the KV cache: greedy or temperature / top-p sampling, stop tokens, a length cap.
 * `generate` prefills left-padded prompts (padding masked, positions counted per row from the
 * first real token) and calls `decode`; a method that builds its own prefix (latent vectors, a
 * coprocessor's cache) calls `decode` directly with its cache and last logits.
 * Letters: B batch, T tokens, V vocab.
 */
import * as tf from '@tensorflow/tfjs-core';
import { disposeCache, keepCache, type KvCache } from './kv-cache.js';
import { leftPadRows } from './sequence.js';
import type { Rng } from './rng.js';
import type { TinyLm } from './tiny-lm.js';
import { tidy } from './tidy.js';

export interface SamplingOptions {
  /** 0 = greedy (argmax). */
  temperature: number;
  /** Nucleus sampling mass (1 = off). */
  topP: number;
  /** Required when temperature > 0. */
  rng?: Rng;
}

export interface DecodeOptions extends Partial<SamplingOptions> {
  maxNewTokens: number;
  /** Generation of a row stops after it emits one of these (the stop token is kept in the output). */
  stopTokens?: number[];
  /** Token fed for rows that already stopped (their outputs are ignored). */
  padId?: number;
}

export interface DecodeResult {
  /** Generated ids per row, up to and including the stop token. */
  tokens: number[][];
  /** Whether each row ended on a stop token (false: hit the length cap or the context end). */
  stopped: boolean[];
}

/** Pick one token per row from logits [B, V]. */
export function sampleTokens(logits: tf.Tensor2D, o: Partial<SamplingOptions> = {}): number[] {
  const temperature = o.temperature ?? 0;
  const topP = o.topP ?? 1;
  if (temperature <= 0) return tf.tidy(() => Array.from(tf.argMax(logits, -1).dataSync()));
  if (!o.rng) throw new Error('sampleTokens: temperature > 0 needs an rng');
  const probs = tf.tidy(() => tf.softmax(tf.div(logits, temperature)).arraySync() as number[][]);
  return probs.map((row) => sampleRow(row, topP, o.rng!));
}

function sampleRow(p: number[], topP: number, rng: Rng): number {
  const order = p.map((v, i) => [v, i] as const).sort((a, b) => b[0] - a[0]);
  let mass = 0;
  let keep = order.length;
  for (let i = 0; i < order.length; i++) {
    mass += order[i][0];
    if (mass >= topP) {
      keep = i + 1;
      break;
    }
  }
  const kept = order.slice(0, keep);
  const total = kept.reduce((a, [v]) => a + v, 0);
  let u = rng.float() * total;
  for (const [v, i] of kept) {
    u -= v;
    if (u <= 0) return i;
  }
  return kept[kept.length - 1][1];
}

/**
 * Continue decoding from a cache. `lastLogits` [B, V] are the logits at each row's last prefix
 * position; `positions` the next position id per row. Takes ownership of `cache` (disposed).
 */
export function decode(lm: TinyLm, cache: KvCache, lastLogits: tf.Tensor2D, positions: number[], o: DecodeOptions): DecodeResult {
  const B = lastLogits.shape[0];
  const stops = new Set(o.stopTokens ?? []);
  const tokens: number[][] = Array.from({ length: B }, () => []);
  const stopped = new Array<boolean>(B).fill(false);
  const pos = [...positions];
  let logits = tf.clone(lastLogits);
  let current = cache;
  try {
    for (let n = 0; n < o.maxNewTokens; n++) {
      const next = sampleTokens(logits, o);
      for (let b = 0; b < B; b++) {
        if (stopped[b]) continue;
        tokens[b].push(next[b]);
        if (stops.has(next[b])) stopped[b] = true;
      }
      if (stopped.every(Boolean) || n === o.maxNewTokens - 1) break;
      if (Math.max(...pos) >= lm.config.contextLength) break;
      const feed = next.map((t, b) => (stopped[b] ? (o.padId ?? t) : t));
      const step = tidy(() => {
        const ids = tf.tensor2d(feed, [B, 1], 'int32');
        const out = lm.forward(lm.embed(ids), { cache: current, positions: tf.tensor2d(pos, [B, 1], 'int32') });
        return { logits: tf.reshape(out.logits, [B, -1]) as tf.Tensor2D, cache: keepCache(out.cache) };
      });
      disposeCache(current);
      logits.dispose();
      current = step.cache;
      logits = step.logits;
      for (let b = 0; b < B; b++) pos[b] += 1;
    }
  } finally {
    logits.dispose();
    disposeCache(current);
  }
  return { tokens, stopped };
}

/** Left-pad id prompts and run them through the LM; returns the cache, last logits and next positions. */
export function prefill(lm: TinyLm, prompts: number[][], padId: number): { cache: KvCache; lastLogits: tf.Tensor2D; positions: number[] } {
  if (prompts.length === 0) throw new Error('prefill: no prompts');
  const T = Math.max(...prompts.map((p) => p.length));
  if (T === 0) throw new Error('prefill: empty prompt');
  if (T > lm.config.contextLength) throw new Error(`prefill: prompt of ${T} tokens exceeds contextLength ${lm.config.contextLength}`);
  const B = prompts.length;
  const { ids, mask, positions } = leftPadRows(prompts, padId);
  return tidy(() => {
    const out = lm.forward(lm.embed(tf.tensor2d(ids, [B, T], 'int32')), {
      attentionMask: tf.tensor2d(mask, [B, T], 'float32'),
      positions: tf.tensor2d(positions, [B, T], 'int32'),
    });
    const lastLogits = tf.reshape(tf.slice(out.logits, [0, T - 1, 0], [B, 1, -1]), [B, -1]) as tf.Tensor2D;
    return { cache: keepCache(out.cache), lastLogits, positions: prompts.map((p) => p.length) };
  });
}

/** Generate continuations of id prompts. */
export function generate(lm: TinyLm, prompts: number[][], o: DecodeOptions & { padId: number }): DecodeResult {
  const { cache, lastLogits, positions } = prefill(lm, prompts, o.padId);
  try {
    return decode(lm, cache, lastLogits, positions, o);
  } finally {
    lastLogits.dispose();
  }
}
