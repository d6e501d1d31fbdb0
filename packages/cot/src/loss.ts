/**
 * The references' objective: next-token cross-entropy on everything after the prompt, CoT on
 * `steps ### answer <eos>`, No-CoT on `### answer <eos>` (core's `referenceSegments`), over the
 * core LM's forward pass; with `promptLossWeight` > 0 also on the question's tokens, each
 * weighted so. Letters: B batch, T tokens, V vocab.
 *
 * With `lengthBuckets` k > 1 the batch is sorted by length and cut into k groups, each padded to
 * its own longest row: the mean over all trained tokens is Σ_g (n_g / n) · mean_g, the same loss
 * (and gradient) as one padded batch, with less padding computed.
 */
import * as tf from '@tensorflow/tfjs-core';
import {
  maskedCrossEntropy,
  packSegments,
  referenceSegments,
  type Example,
  type PackedBatch,
  type Segment,
} from '@telepath/core';
import type { CotState } from './state.js';

export function referenceLoss(s: CotState, batch: Example[]): tf.Scalar {
  const rows = batch.map((ex) => withPromptWeight(referenceSegments(s.tokenizer, ex, s.config.variant === 'cot'), s));
  const groups = lengthGroups(rows.map(rowLength), s.config.lengthBuckets);
  return tf.tidy(() => {
    const packs = groups.map((g) =>
      packSegments(
        g.map((i) => rows[i]),
        s.tokenizer.padId,
        s.lm.config.contextLength,
      ),
    );
    if (packs.length === 1) return packLoss(s, packs[0]);
    const total = Math.max(
      packs.reduce((a, p) => a + p.trainedTargets, 0),
      1,
    );
    // Σ_g (n_g / n) · mean_g = the mean over all n trained targets
    return tf.addN(packs.map((p) => tf.mul(packLoss(s, p), p.trainedTargets / total))) as tf.Scalar;
  });
}

/** The question (first) segment trained at `promptLossWeight` when that is > 0; as it was otherwise. */
function withPromptWeight(row: Segment[], s: CotState): Segment[] {
  const w = s.config.promptLossWeight;
  return w > 0 ? [{ ...row[0], trained: true, weight: w }, ...row.slice(1)] : row;
}

/** The token-mean loss of one right-padded batch. */
function packLoss(s: CotState, p: PackedBatch): tf.Scalar {
  const out = s.lm.forward(s.lm.embed(p.ids)); // [B, T, V]; right padding: causal attention never sees it
  return maskedCrossEntropy(out.logits, p.targets, p.lossMask);
}

const rowLength = (row: { ids: number[] }[]) => row.reduce((a, seg) => a + seg.ids.length, 0);

/** Row indices sorted by length and cut into at most `k` groups of near-equal size (non-empty). */
export function lengthGroups(lengths: readonly number[], k: number): number[][] {
  const order = lengths.map((_, i) => i).sort((a, b) => lengths[a] - lengths[b] || a - b);
  const parts = Math.min(k, order.length);
  if (parts <= 1) return [lengths.map((_, i) => i)];
  return Array.from({ length: parts }, (_, g) =>
    order.slice(Math.floor((g * order.length) / parts), Math.floor(((g + 1) * order.length) / parts)),
  );
}
