/**
 * Decoding with the KV cache: greedy or temperature / top-p sampling, stop tokens, a length cap.
 * `generate` prefills left-padded prompts (padding masked, positions counted per row from the
 * first real token) and calls `decode`; a method that builds its own prefix (latent vectors, a
 * coprocessor's cache) calls `decode` directly with its cache and last logits. Each decode step
 * reads back one small tensor (the chosen ids, or the sampling probabilities) asynchronously:
 * the next step's input depends on it, and a synchronous read would fail on webgpu.
 * Letters: B batch, T tokens, V vocab.
 */
import * as tf from '@tensorflow/tfjs-core';
import { rowIndices, type HeldRows } from './held-rows.js';
import { cacheRows, disposeCache, keepCache, type KvCache } from './kv-cache.js';
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

type Flat = Float32Array | Int32Array;

/** Pick one token per row from logits [B, V] (one asynchronous read). */
export async function sampleTokens(logits: tf.Tensor2D, o: Partial<SamplingOptions> = {}): Promise<number[]> {
  const picked = pickTensor(logits, o);
  try {
    return tokensFrom((await picked.data()) as Flat, logits.shape, o);
  } finally {
    picked.dispose();
  }
}

/** What a step reads back: the argmax ids [B] (greedy) or the probabilities [B, V] (sampling). */
function pickTensor(logits: tf.Tensor2D, o: Partial<SamplingOptions>): tf.Tensor {
  const temperature = o.temperature ?? 0;
  if (temperature > 0 && !o.rng) throw new Error('sampleTokens: temperature > 0 needs an rng');
  return tf.tidy(() => (temperature <= 0 ? tf.argMax(logits, -1) : tf.softmax(tf.div(logits, temperature))));
}

/**
 * One token per row of the batch. `rows` (decode's compaction): the tensor holds the logits of
 * rows `held` (in order) of the batch's `of`; a row not held draws and discards its one uniform,
 * so every row's sampling stream is the one it has in the whole batch. Rows not held get -1.
 */
function tokensFrom(flat: Flat, [A, V]: number[], o: Partial<SamplingOptions>, rows?: HeldRows): number[] {
  const held = rows?.held ?? Array.from({ length: A }, (_, i) => i);
  const out = new Array<number>(rows?.of ?? A).fill(-1);
  if ((o.temperature ?? 0) <= 0) {
    held.forEach((b, i) => (out[b] = flat[i]));
    return out;
  }
  let i = 0;
  for (let b = 0; b < out.length; b++) {
    if (held[i] !== b) {
      o.rng!.float(); // this row's draw, as if it were still in the batch
      continue;
    }
    out[b] = sampleRow(Array.from(flat.subarray(i * V, (i + 1) * V)), o.topP ?? 1, o.rng!);
    i++;
  }
  return out;
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
 * One asynchronous read per step (the next ids depend on it).
 */
export async function decode(
  lm: TinyLm,
  cache: KvCache,
  lastLogits: tf.Tensor2D,
  positions: number[],
  o: DecodeOptions,
): Promise<DecodeResult> {
  const steps = decodeSteps(lm, cache, lastLogits, positions, o);
  try {
    let r = steps.next();
    while (!r.done) r = steps.next((await r.value.data()) as Flat);
    return r.value;
  } catch (e) {
    steps.return(undefined as never); // runs the loop's finally: frees the cache
    throw e;
  }
}

/**
 * The decoding loop: yields the tensor to read at each step (and disposes it), receives its values.
 * Rows that stopped leave the batch once they are half of it (their cache rows gathered away), so a
 * few long generations do not make every finished row run to the end; each row's outputs, and its
 * sampling stream, are those it has without that.
 */
function* decodeSteps(
  lm: TinyLm,
  cache: KvCache,
  lastLogits: tf.Tensor2D,
  positions: number[],
  o: DecodeOptions,
): Generator<tf.Tensor, DecodeResult, Flat> {
  const B = lastLogits.shape[0];
  const stops = new Set(o.stopTokens ?? []);
  const tokens: number[][] = Array.from({ length: B }, () => []);
  const stopped = new Array<boolean>(B).fill(false);
  const pos = [...positions];
  let held = Array.from({ length: B }, (_, b) => b); // the batch rows the tensors hold, in order
  let logits = tf.clone(lastLogits); // [A, V], A = held.length
  let current = cache;
  try {
    for (let n = 0; n < o.maxNewTokens; n++) {
      const picked = pickTensor(logits, o);
      let next: number[];
      try {
        next = tokensFrom(yield picked, logits.shape, o, { held, of: B });
      } finally {
        picked.dispose();
      }
      for (const b of held) {
        if (stopped[b]) continue;
        tokens[b].push(next[b]);
        if (stops.has(next[b])) stopped[b] = true;
      }
      if (stopped.every(Boolean) || n === o.maxNewTokens - 1) break;
      if (Math.max(...pos) >= lm.config.contextLength) break;
      const going = held.filter((b) => !stopped[b]);
      if (2 * going.length <= held.length) {
        ({ cache: current, logits } = keepRows(current, logits, held, going));
        held = going;
      }
      const A = held.length;
      const feed = held.map((b) => (stopped[b] ? (o.padId ?? next[b]) : next[b]));
      const step = tidy(() => {
        const ids = tf.tensor2d(feed, [A, 1], 'int32');
        const at = tf.tensor2d(
          held.map((b) => pos[b]),
          [A, 1],
          'int32',
        );
        const out = lm.forward(lm.embed(ids), { cache: current, positions: at });
        return { logits: tf.reshape(out.logits, [A, -1]) as tf.Tensor2D, cache: keepCache(out.cache) };
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

/** The cache and logits of rows `keep` (a subsequence of `held`, the rows they hold now); frees the old ones. */
function keepRows(
  cache: KvCache,
  logits: tf.Tensor2D,
  held: number[],
  keep: number[],
): { cache: KvCache; logits: tf.Tensor2D } {
  const kept = tidy(() => {
    const at = rowIndices(held, keep);
    return {
      logits: tf.gather(logits, at) as tf.Tensor2D, // [A', V]
      cache: keepCache(cacheRows(cache, at)), // [A', …]
    };
  });
  disposeCache(cache);
  logits.dispose();
  return kept;
}

/** Left-pad id prompts and run them through the LM; returns the cache, last logits and next positions. */
export function prefill(
  lm: TinyLm,
  prompts: number[][],
  padId: number,
): { cache: KvCache; lastLogits: tf.Tensor2D; positions: number[] } {
  if (prompts.length === 0) throw new Error('prefill: no prompts');
  const T = Math.max(...prompts.map((p) => p.length));
  if (T === 0) throw new Error('prefill: empty prompt');
  if (T > lm.config.contextLength)
    throw new Error(`prefill: prompt of ${T} tokens exceeds contextLength ${lm.config.contextLength}`);
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
export async function generate(
  lm: TinyLm,
  prompts: number[][],
  o: DecodeOptions & { padId: number },
): Promise<DecodeResult> {
  const { cache, lastLogits, positions } = prefill(lm, prompts, o.padId);
  try {
    return await decode(lm, cache, lastLogits, positions, o);
  } finally {
    lastLogits.dispose();
  }
}
