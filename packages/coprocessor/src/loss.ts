/**
 * Losses of the channel. Both run the same pipeline — Base encodes a prefix, the Coprocessor
 * reads that cache plus N_L soft tokens, the latents reach the Base, the Base continues — and
 * score the Base's next-token predictions on a continuation (paper A, arXiv 2510.00494:
 * max E log p_θ(y | x, inject(Z; KV_θ(x))), "CE on y only").
 *   task ('sft', 'warm'): prefix = prompt, continuation = `### answer <eos>`.
 *   ahead ('pretrain'): Liu et al. 2024, arXiv 2412.17747 Fig. 2 — at a random augmentation point
 *     t of the text the Base was trained on, the latents come after token t and the Base predicts
 *     the next N_A "ahead" tokens. With embedding injection (liu, h2-embed) this is Liu's layout:
 *     the Coprocessor reads the cache of tokens 0..t, the last latent predicts token t+1 and tokens
 *     t+1.. are fed after it. KV injection (h1, h2) has no Base query at the latent positions, so
 *     there the Coprocessor reads tokens 0..t−1 and token t is fed after the latents as a cue. One
 *     augmentation point per row (Liu uses many per sequence with an isolating mask; one per row
 *     is the same objective sampled more sparsely).
 * The task's continuation starts with a cue that is never scored: a KV-injected channel (H1) has no
 * Base query at the latent positions, so every arm predicts the same tokens — the answer after ###
 * (forced at generation, as core's No-CoT reference does). Letters: B batch, T tokens, V vocab.
 */
import * as tf from '@tensorflow/tfjs-core';
import { encodeExample, maskedCrossEntropy, type Example, type Rng } from '@telepath/core';
import { answerShift, continueBase, latentsFor } from './model.js';
import type { CoprocessorState } from './state.js';

export interface ChannelRow {
  prefix: number[];
  /**
   * Tokens after the latents. With `cue` (≥ 2 tokens) the first is fed and never scored and the
   * rest are predicted; without (embedding injection only, ≥ 1 token) every one is predicted, the
   * first from the last latent's position.
   */
  continuation: number[];
  cue: boolean;
}

/** Mean CE of the Base on every scored continuation token (all but the cue). */
export function channelLoss(s: CoprocessorState, rows: ChannelRow[]): tf.Scalar {
  for (const r of rows) {
    if (r.cue && r.continuation.length < 2)
      throw new Error('coprocessor: a continuation with a cue needs at least one target after it');
    if (!r.cue && (r.continuation.length < 1 || s.spec.injection !== 'embeddings'))
      throw new Error(
        'coprocessor: a continuation without a cue needs a target and embedding injection (the last latent predicts it)',
      );
  }
  return tf.tidy(() => {
    const { prompt, latents } = latentsFor(
      s,
      rows.map((r) => r.prefix),
    );
    const inputs = rows.map((r) => (r.cue ? r.continuation.slice(0, -1) : r.continuation)); // without a cue the last fed token is unscored: every row feeds ≥ 1 token
    const { logits, offset } = continueBase(s.base, prompt, latents, inputs, s.tokenizer.padId, answerShift(s)); // [B, offset + T, V]
    const [B, T] = logits.shape;
    const targets = new Int32Array(B * T).fill(s.tokenizer.padId);
    const mask = new Float32Array(B * T);
    // Continuation token j is predicted at column offset − 1 + j: the cue's column predicts token 1;
    // without a cue, the last latent's column (offset − 1) predicts token 0.
    rows.forEach((r, b) =>
      r.continuation.forEach((id, j) => {
        if (r.cue && j === 0) return;
        targets[b * T + offset - 1 + j] = id;
        mask[b * T + offset - 1 + j] = 1;
      }),
    );
    return maskedCrossEntropy(logits, tf.tensor2d(targets, [B, T], 'int32'), tf.tensor2d(mask, [B, T]));
  });
}

/** Task rows: the prompt, then `### answer <eos>`. */
export function taskRows(s: CoprocessorState, batch: Example[]): ChannelRow[] {
  return batch.map((ex) => {
    const e = encodeExample(s.tokenizer, ex);
    return { prefix: e.prompt, continuation: e.answer, cue: true };
  });
}

/**
 * Ahead-token rows on the task text of n tokens (prompt, steps unless aheadText is 'without-steps', answer). Embedding injection:
 * augmentation point t uniform in [1, n − 2], prefix = ids[0, t], continuation = the N_A tokens
 * after it (cut at the end), all predicted. KV injection: prefix = ids[0, t), continuation =
 * ids[t, t + 1 + N_A) with ids[t] as the cue.
 */
export function aheadRows(s: CoprocessorState, batch: Example[], rng: Rng): ChannelRow[] {
  const N = s.config.aheadTokens;
  return batch.map((ex) => {
    const e = encodeExample(s.tokenizer, ex);
    const ids = [...e.prompt, ...(s.config.aheadText === 'with-steps' ? e.reasoning : []), ...e.answer];
    const t = 1 + rng.int(ids.length - 2);
    if (s.spec.injection === 'embeddings')
      return { prefix: ids.slice(0, t + 1), continuation: ids.slice(t + 1, t + 1 + N), cue: false };
    return { prefix: ids.slice(0, t), continuation: ids.slice(t, t + 1 + N), cue: true };
  });
}
