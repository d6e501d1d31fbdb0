/**
 * Losses of the channel. Both run the same pipeline — Base encodes a prefix, the Coprocessor
 * reads that cache plus N_L soft tokens, the latents reach the Base, the Base continues — and
 * score the Base's next-token predictions on a continuation (paper A, arXiv 2510.00494:
 * max E log p_θ(y | x, inject(Z; KV_θ(x))), "CE on y only").
 *   task ('sft', 'warm'): prefix = prompt, continuation = `### answer <eos>`.
 *   ahead ('pretrain'): Liu et al. 2024, arXiv 2412.17747 Fig. 2 — at a random insertion point
 *     of the task text, predict the next N_A "ahead" tokens. One insertion point per row (Liu
 *     uses many per sequence with an isolating mask; one per row is the same objective sampled
 *     more sparsely).
 * The continuation's first token is always fed as a cue and never scored: a KV-injected channel
 * (H1) has no Base query at the latent positions, so every arm predicts the same tokens — the
 * answer after ### (forced at generation, as core's No-CoT reference does), or the ahead tokens
 * after the insertion token (Liu inserts after that token's embedding; here its embedding comes
 * right after the latents). Letters: B batch, T tokens, V vocab.
 */
import * as tf from '@tensorflow/tfjs-core';
import { encodeExample, maskedCrossEntropy, type Example, type Rng } from '@telepath/core';
import { continueBase, encodePrompts, type Latents } from './channel.js';
import { runCoprocessor } from './model.js';
import type { CoprocessorState } from './state.js';

export interface ChannelRow {
  prefix: number[];
  /** ≥ 2 tokens: the first is fed as a cue, the rest are predicted. */
  continuation: number[];
}

/**
 * Prompt cache, Coprocessor output and the latents handed to the Base (KV as produced; z scaled
 * by `latentScale` for embedding injection). Call inside a tidy.
 */
export function latentsFor(s: CoprocessorState, prefixes: number[][]) {
  const prompt = encodePrompts(s.base, prefixes, s.tokenizer.padId);
  const out = runCoprocessor(s.cp, prompt.cache, prompt.lengths);
  const latents: Latents = s.spec.injection === 'kv' ? { injection: 'kv', kv: out.kv } : { injection: 'embeddings', z: tf.mul(out.z, s.latentScale) as tf.Tensor3D };
  return { prompt, out, latents };
}

/** Position ids the continuation starts after the prompt: N_L or 0 (config.shiftAnswerPositions). */
export function answerShift(s: CoprocessorState): number {
  return s.config.shiftAnswerPositions ? s.config.latentTokens : 0;
}

/** Mean CE of the Base on every continuation token after the first. */
export function channelLoss(s: CoprocessorState, rows: ChannelRow[]): tf.Scalar {
  for (const r of rows) if (r.continuation.length < 2) throw new Error('coprocessor: a continuation needs a cue token and at least one target');
  return tf.tidy(() => {
    const { prompt, latents } = latentsFor(s, rows.map((r) => r.prefix));
    const inputs = rows.map((r) => r.continuation.slice(0, -1));
    const { logits, offset } = continueBase(s.base, prompt, latents, inputs, s.tokenizer.padId, answerShift(s)); // [B, offset + T, V]
    const [B, T] = logits.shape;
    const targets = new Int32Array(B * T).fill(s.tokenizer.padId);
    const mask = new Float32Array(B * T); // 0 at latent columns
    rows.forEach((r, b) => r.continuation.slice(1).forEach((id, t) => {
      targets[b * T + offset + t] = id;
      mask[b * T + offset + t] = 1;
    }));
    return maskedCrossEntropy(logits, tf.tensor2d(targets, [B, T], 'int32'), tf.tensor2d(mask, [B, T]));
  });
}

/** Task rows: the prompt, then `### answer <eos>`. */
export function taskRows(s: CoprocessorState, batch: Example[]): ChannelRow[] {
  return batch.map((ex) => {
    const e = encodeExample(s.tokenizer, ex);
    return { prefix: e.prompt, continuation: e.answer };
  });
}

/**
 * Ahead-token rows on the whole task text (prompt, steps, answer): an insertion point t drawn
 * uniformly in [1, n − 2]; prefix = ids[0, t), continuation = ids[t, t + 1 + N_A) cut at the end.
 */
export function aheadRows(s: CoprocessorState, batch: Example[], rng: Rng): ChannelRow[] {
  return batch.map((ex) => {
    const e = encodeExample(s.tokenizer, ex);
    const ids = [...e.prompt, ...e.reasoning, ...e.answer];
    const t = 1 + rng.int(ids.length - 2);
    return { prefix: ids.slice(0, t), continuation: ids.slice(t, t + 1 + s.config.aheadTokens) };
  });
}
