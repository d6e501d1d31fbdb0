/**
 * The agents of ThoughtComm's part 2 ("Thought Communication in Multiagent Collaboration", arXiv
 * 2510.20733; docs/method-reference.md §1.3–1.4, §1.9): core LMs trained on a task, answering with or without a
 * prefix of m embeddings in front of their input, and their states — the hidden state of the last
 * token at a chosen depth.
 * Layout of a prefixed row (left padding, as core's `prefill`):
 *   [P_1 … P_m] [<pad> …] <bos> question "\n" [###]
 * The prefix is prepended to the input embeddings (§1.9), so by default ('after') it takes position
 * ids 0 … m−1 of its own and the prompt follows at m, m+1, … (counted from each row's first real
 * token; pads are masked) — as a model reading `inputs_embeds` numbers them. 'shared' keeps the
 * prompt at the ids it was trained with (0, 1, …) and gives the prefix 0 … m−1 beside them: for
 * frozen agents with learned absolute positions that never saw a prefix, which a shift by m moves
 * off every position they were trained on (a rotary model sees only relative offsets).
 * Letters: B batch, T tokens, m prefix length, C width, V vocab.
 */
import * as tf from '@tensorflow/tfjs-core';
import {
  answerFromIds,
  decode,
  encodeExample,
  keepCache,
  leftPadRows,
  maskedCrossEntropy,
  packSegments,
  referenceSegments,
  tidy,
  type Example,
  type KvCache,
  type PackedBatch,
  type Rng,
  type TinyLm,
  type Tokenizer,
} from '@telepath/core';
import type { AgentVariant, PrefixPositions } from './agents-config.js';

export interface Agent {
  lm: TinyLm;
  tokenizer: Tokenizer;
  variant: AgentVariant;
  /** default 'after' */
  prefixPositions?: PrefixPositions;
}

/** One agent's answers to a batch: the answer text, the emitted ids and the transcript ids (prompt + response). */
export interface AgentResponse {
  answers: string[];
  responses: number[][];
  transcripts: number[][];
}

/** Token segments of one example: the prompt is context, the rest is trained (core's `referenceSegments`, as the cot package trains). */
export function agentSegments(a: Agent, ex: Example): { ids: number[]; trained: boolean }[] {
  return referenceSegments(a.tokenizer, ex, a.variant === 'cot');
}

/** Supervised next-token loss of an agent on a batch (the No-CoT / CoT reference loss). */
export function agentLoss(a: Agent, batch: Example[]): tf.Scalar {
  return tf.tidy(() => {
    const p = packSegments(
      batch.map((ex) => agentSegments(a, ex)),
      a.tokenizer.padId,
      a.lm.config.contextLength,
    );
    const out = a.lm.forward(a.lm.embed(p.ids));
    return maskedCrossEntropy(out.logits, p.targets, p.lossMask);
  });
}

/** The ids an agent answers after: the prompt, plus ### for No-CoT agents (forced, as cot does). */
export function promptIds(a: Agent, ex: Example): number[] {
  return [...encodeExample(a.tokenizer, ex).prompt, ...(a.variant === 'no-cot' ? [a.tokenizer.sepId] : [])];
}

/**
 * Forward of left-padded rows behind an optional prefix [B, m, C]. Returns the output (hidden
 * states, logits, cache) and each row's next position id.
 */
export function prefixedForward(
  lm: TinyLm,
  rows: number[][],
  prefix: tf.Tensor3D | null,
  padId: number,
  at: PrefixPositions = 'after',
): { logits: tf.Tensor3D; hidden: tf.Tensor3D[]; cache: KvCache; positions: number[] } {
  const B = rows.length;
  const T = Math.max(...rows.map((r) => r.length));
  const m = prefix ? prefix.shape[1] : 0;
  if (T + m > lm.config.contextLength)
    throw new Error(`prefixedForward: ${m} prefix + ${T} tokens exceed contextLength ${lm.config.contextLength}`);
  const { ids, mask, positions: padded } = leftPadRows(rows, padId, m);
  const pos = prefixPositions(padded, B, m, T, at);
  return tidy(() => {
    const tokens = lm.embed(tf.tensor2d(ids, [B, T], 'int32')); // [B, T, C]
    const embeds = prefix ? (tf.concat([prefix, tokens], 1) as tf.Tensor3D) : tokens; // [B, m + T, C]
    const out = lm.forward(embeds, {
      attentionMask: tf.tensor2d(mask, [B, m + T]),
      positions: tf.tensor2d(pos, [B, m + T], 'int32'),
    });
    return {
      logits: out.logits,
      hidden: out.hidden,
      cache: keepCache(out.cache),
      positions: rows.map((r) => (at === 'after' ? m : 0) + r.length),
    };
  });
}

/** leftPadRows' positions (m leading zeros, then each row's own 0, 1, …) with the prefix at 0 … m−1 and, 'after', every token moved behind it. */
function prefixPositions(padded: number[], B: number, m: number, T: number, at: PrefixPositions): number[] {
  if (m === 0) return padded;
  const out = padded.slice();
  for (let b = 0; b < B; b++) {
    const row = b * (m + T);
    for (let k = 0; k < m; k++) out[row + k] = k;
    if (at === 'after') for (let t = 0; t < T; t++) out[row + m + t] += m;
  }
  return out;
}

/** Greedy (or sampled) answers of an agent to a batch, behind an optional prefix [B, m, C] (core's `decode`: one asynchronous read per token). */
export async function respond(
  a: Agent,
  batch: Example[],
  prefix: tf.Tensor3D | null,
  o: { maxNewTokens: number; temperature?: number; topP?: number; rng?: Rng },
): Promise<AgentResponse> {
  const tok = a.tokenizer;
  const prompts = batch.map((ex) => promptIds(a, ex));
  const m = prefix ? prefix.shape[1] : 0;
  const room = a.lm.config.contextLength - m - Math.max(...prompts.map((p) => p.length));
  const out = prefixedForward(a.lm, prompts, prefix, tok.padId, a.prefixPositions);
  const T = out.logits.shape[1];
  const last = tidy(
    () => tf.reshape(tf.slice(out.logits, [0, T - 1, 0], [-1, 1, -1]), [batch.length, -1]) as tf.Tensor2D,
  ); // [B, V]
  tf.dispose([out.logits, ...out.hidden]);
  let gen: number[][];
  try {
    gen = (
      await decode(a.lm, out.cache, last, out.positions, {
        maxNewTokens: Math.min(o.maxNewTokens, room),
        stopTokens: [tok.eosId],
        padId: tok.padId,
        temperature: o.temperature ?? 0,
        topP: o.topP ?? 1,
        rng: o.rng,
      })
    ).tokens;
  } finally {
    last.dispose();
  }
  const forced = a.variant === 'no-cot' ? [tok.sepId] : [];
  return {
    answers: gen.map((g) => answerFromIds(tok, [...forced, ...g]).answer),
    responses: gen,
    transcripts: prompts.map((p, i) => [...p, ...gen[i]]),
  };
}

/**
 * States of an agent: the hidden state at index `layer` of the last token of each transcript,
 * read behind the prefix the agent saw (if any). rows: B id lists → [B, C].
 */
export function agentStates(
  lm: TinyLm,
  rows: number[][],
  layer: number,
  prefix: tf.Tensor3D | null,
  padId: number,
  at: PrefixPositions = 'after',
): tf.Tensor2D {
  const out = prefixedForward(lm, rows, prefix, padId, at);
  return tidy(() => {
    const h = out.hidden[layer]; // [B, m + T, C]
    const S = h.shape[1];
    const state = tf.reshape(tf.slice(h, [0, S - 1, 0], [-1, 1, -1]), [rows.length, lm.config.width]) as tf.Tensor2D; // [B, C]
    tf.dispose([out.logits, ...out.hidden, ...out.cache.layers.flat().flatMap((l) => [l.k, l.v]), out.cache.keyMask]);
    return state;
  });
}

/**
 * Teacher-forced pass behind a prefix on a right-padded batch (the adapter objectives). Nothing is
 * sliced off: the targets and masks are shifted right by the m prefix positions instead, with 0 in
 * the mask there (the gradient of a slice of [B, m + T, V] logits is ≈ 50× slower than the whole
 * forward and backward on the native backend, measured). prefix [B, m, C] →
 * logits [B, m + T, V], hidden (L+1) × [B, m + T, C], targets [B, m + T], lossMask [B, m + T],
 * tokenMask [B, m + T] (1 on real token positions).
 */
export function prefixedTeacherForcing(
  lm: TinyLm,
  prefix: tf.Tensor3D | null,
  p: PackedBatch,
  at: PrefixPositions = 'after',
): { logits: tf.Tensor3D; hidden: tf.Tensor3D[]; targets: tf.Tensor2D; lossMask: tf.Tensor2D; tokenMask: tf.Tensor2D } {
  return tidy(() => {
    const [B, T] = p.ids.shape;
    const m = prefix ? prefix.shape[1] : 0;
    const shift = (t: tf.Tensor2D, dtype: 'int32' | 'float32') =>
      m ? (tf.concat([tf.zeros([B, m], dtype), tf.cast(t, dtype)], 1) as tf.Tensor2D) : t; // [B, m + T]
    const tokens = lm.embed(p.ids); // [B, T, C]
    const embeds = prefix ? (tf.concat([prefix, tokens], 1) as tf.Tensor3D) : tokens; // [B, m + T, C]
    const attentionMask = m ? (tf.concat([tf.ones([B, m]), p.attentionMask], 1) as tf.Tensor2D) : p.attentionMask; // [B, m + T]
    const ids =
      at === 'after' || m === 0
        ? tf.range(0, m + T, 1, 'int32')
        : tf.concat([tf.range(0, m, 1, 'int32'), tf.range(0, T, 1, 'int32')]); // [m + T]: prefix 0 … m−1, tokens after it or from 0
    const positions = tf.tile(tf.reshape(ids, [1, m + T]), [B, 1]) as tf.Tensor2D; // [B, m + T]
    const out = lm.forward(embeds, { attentionMask, positions });
    return {
      logits: out.logits,
      hidden: out.hidden,
      targets: shift(p.targets, 'int32'),
      lossMask: shift(p.lossMask, 'float32'),
      tokenMask: shift(p.attentionMask, 'float32'),
    };
  });
}

/** Mean row norm of an LM's token-embedding table (the scale prefixes are set to, §1.9); read asynchronously. */
export async function embeddingNorm(lm: TinyLm): Promise<number> {
  const norm = tf.tidy(() => tf.mean(tf.norm(lm.params.get('wte')!, 'euclidean', 1)));
  try {
    return (await norm.data())[0];
  } finally {
    norm.dispose();
  }
}
