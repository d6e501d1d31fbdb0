/**
 * Training losses. Both are the LM's next-token cross-entropy on what follows the latents; the
 * prompt, the latent slots and the markers are never targets.
 *   soft tokens: <bos> question \n · N_L soft tokens · ### answer <eos>; trains the LM and the
 *     soft tokens (paper A, arXiv 2510.00494: one model, N_L trainable vectors, "CE on y only").
 *   continuous thought: <bos> question \n <bot> · s·c thoughts · <eot> · steps[s:] · ### answer
 *     <eos> at curriculum stage s; the remaining language steps and the answer are trained, the
 *     markers are not (Coconut arXiv 2412.06769 v1 §3; label masking as its released code does).
 * With `lengthBuckets` k > 1 a batch is trained in core's length groups (each aligned and padded
 * on its own, the token mean over all of them): the same loss and gradient, less padding computed.
 * Letters: B batch, K latent slots, C width.
 */
import * as tf from '@tensorflow/tfjs-core';
import {
  encodeExample,
  groupTokenMean,
  lengthGroups,
  maskedCrossEntropy,
  type Example,
  type StepInfo,
} from '@telepath/core';
import { exampleStage, stageLayout, stageOfPhase } from './curriculum.js';
import { alignBatch, type AlignedBatch, type AlignedRow } from './layout.js';
import { continuousForward, softTokenForward } from './model.js';
import type { SoftEmbeddingState } from './state.js';

/** Aligned training rows of soft tokens. */
export function softTokenRows(s: SoftEmbeddingState, batch: Example[]): AlignedRow[] {
  return batch.map((ex) => {
    const e = encodeExample(s.tokenizer, ex);
    return { prefix: e.prompt, latents: s.config.latentTokens, suffix: [{ ids: e.answer, trained: true }] };
  });
}

/** Aligned training rows of continuous thought: each example at its stage. */
export function continuousRows(s: SoftEmbeddingState, batch: Example[], stages: number[]): AlignedRow[] {
  const tok = s.tokenizer;
  return batch.map((ex, i) => {
    const { thoughts, removedSteps } = stageLayout(stages[i], ex.steps.length, s.config);
    const e = encodeExample(tok, { ...ex, steps: ex.steps.slice(removedSteps) });
    return {
      prefix: [...e.prompt, tok.id('bot')],
      latents: thoughts,
      suffix: [
        { ids: [tok.id('eot')], trained: false },
        { ids: e.reasoning, trained: true },
        { ids: e.answer, trained: true },
      ],
    };
  });
}

/** The token-mean loss of `rows` in `s.config.lengthBuckets` length groups, each aligned on its own and scored by `lossOf`. */
function groupedLoss(
  s: SoftEmbeddingState,
  rows: AlignedRow[],
  lossOf: (b: AlignedBatch) => tf.Scalar,
): tf.Scalar {
  const length = (r: AlignedRow) => r.prefix.length + r.latents + r.suffix.reduce((a, seg) => a + seg.ids.length, 0);
  const targets = (r: AlignedRow) => r.suffix.reduce((a, seg) => a + (seg.trained ? seg.ids.length : 0), 0);
  const groups = lengthGroups(rows.map(length), s.config.lengthBuckets).map((g) => g.map((i) => rows[i]));
  return tf.tidy(() =>
    groupTokenMean(
      groups.map((g) => {
        const b = alignBatch(g, {
          padId: s.tokenizer.padId,
          latentId: s.tokenizer.id('latent'),
          contextLength: s.lm.config.contextLength,
          teacherForcing: true,
        });
        return { loss: lossOf(b), targets: g.reduce((a, r) => a + targets(r), 0) };
      }),
    ),
  );
}

export function softTokensLoss(s: SoftEmbeddingState, batch: Example[], at: StepInfo): tf.Scalar {
  if (!s.soft) throw new Error('softTokensLoss: the state has no soft tokens');
  const soft = s.soft;
  return groupedLoss(s, softTokenRows(s, batch), (b) => {
    const z = tf.tile(tf.expandDims(soft, 0), [b.latentCounts.length, 1, 1]) as tf.Tensor3D; // [B, K, C]
    const out = softTokenForward(s.lm, b, z, { training: true, rng: at.rng });
    return maskedCrossEntropy(out.logits, b.targets!, b.lossMask!);
  });
}

export function continuousLoss(s: SoftEmbeddingState, batch: Example[], at: StepInfo): tf.Scalar {
  const scheduled = stageOfPhase(at.phase);
  const stages = batch.map((ex, i) =>
    exampleStage(scheduled, ex.steps.length, s.config.uniformProb, at.rng.fork(`stage/${i}`)),
  );
  return groupedLoss(s, continuousRows(s, batch, stages), (b) => {
    const out = continuousForward(s.lm, b, { training: true, rng: at.rng });
    return maskedCrossEntropy(out.logits, b.targets!, b.lossMask!);
  });
}
