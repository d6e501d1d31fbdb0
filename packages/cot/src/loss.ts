/**
 * The references' objective: next-token cross-entropy on everything after the prompt, CoT on
 * `steps ### answer <eos>`, No-CoT on `### answer <eos>` (core's `referenceSegments`), over the
 * core LM's forward pass. Letters: B batch, T tokens, V vocab.
 *
 * With `lengthBuckets` k > 1 the batch is sorted by length and cut into k groups, each padded to
 * its own longest row: the mean over all trained tokens is Σ_g (n_g / n) · mean_g, the same loss
 * (and gradient) as one padded batch, with less padding computed.
 */
import * as tf from '@tensorflow/tfjs-core';
import { maskedCrossEntropy, packSegments, referenceSegments, type Example } from '@telepath/core';
import type { CotState } from './state.js';

type Row = { ids: number[]; trained: boolean }[];

export function referenceLoss(s: CotState, batch: Example[]): tf.Scalar {
  const rows = batch.map((ex) => referenceSegments(s.tokenizer, ex, s.config.variant === 'cot'));
  const groups = lengthGroups(rows.map(rowLength), s.config.lengthBuckets);
  if (groups.length === 1) return groupLoss(s, rows);
  const counts = groups.map((g) => g.reduce((a, i) => a + trainedTargets(rows[i]), 0));
  const total = Math.max(
    counts.reduce((a, c) => a + c, 0),
    1,
  );
  return tf.tidy(() => {
    const parts = groups.map((g, k) =>
      tf.mul(
        groupLoss(
          s,
          g.map((i) => rows[i]),
        ),
        counts[k] / total,
      ),
    );
    return tf.addN(parts) as tf.Scalar; // Σ_g (n_g / n) · mean_g = the mean over all n trained tokens
  });
}

/** The token-mean loss of rows packed as one right-padded batch. */
function groupLoss(s: CotState, rows: Row[]): tf.Scalar {
  return tf.tidy(() => {
    const p = packSegments(rows, s.tokenizer.padId, s.lm.config.contextLength);
    const out = s.lm.forward(s.lm.embed(p.ids)); // [B, T, V]; right padding: causal attention never sees it
    return maskedCrossEntropy(out.logits, p.targets, p.lossMask);
  });
}

const rowLength = (row: Row) => row.reduce((a, seg) => a + seg.ids.length, 0);

/** Targets a row trains on: its trained tokens after the first (packSegments' lossMask). */
function trainedTargets(row: Row): number {
  let t = 0;
  let n = 0;
  for (const seg of row) for (let j = 0; j < seg.ids.length; j++, t++) if (t > 0 && seg.trained) n++;
  return n;
}

/** Row indices sorted by length and cut into at most `k` groups of near-equal size (non-empty). */
export function lengthGroups(lengths: readonly number[], k: number): number[][] {
  const order = lengths.map((_, i) => i).sort((a, b) => lengths[a] - lengths[b] || a - b);
  const parts = Math.min(k, order.length);
  if (parts <= 1) return [lengths.map((_, i) => i)];
  return Array.from({ length: parts }, (_, g) =>
    order.slice(Math.floor((g * order.length) / parts), Math.floor(((g + 1) * order.length) / parts)),
  );
}
