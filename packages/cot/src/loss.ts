/**
 * The references' objective: next-token cross-entropy on everything after the prompt, CoT on
 * `steps ### answer <eos>`, No-CoT on `### answer <eos>` (core's `referenceSegments`), over the
 * core LM's forward pass; with `promptLossWeight` > 0 also on the question's tokens, each
 * weighted so. Letters: B batch, T tokens, V vocab.
 *
 * With `lengthBuckets` k > 1 the batch is trained in core's length groups (`lengthGroups`,
 * `groupTokenMean`): the same loss and gradient as one padded batch, with less padding computed.
 */
import * as tf from '@tensorflow/tfjs-core';
import {
  groupTokenMean,
  lengthGroups,
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
    return groupTokenMean(packs.map((p) => ({ loss: packLoss(s, p), targets: p.trainedTargets })));
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
