/**
 * The references' objective: next-token cross-entropy on everything after the prompt, CoT on
 * `steps ### answer <eos>`, No-CoT on `### answer <eos>` (core's `referenceSegments`), over the
 * core LM's forward pass. Letters: B batch, T tokens, V vocab.
 */
import * as tf from '@tensorflow/tfjs-core';
import { maskedCrossEntropy, packSegments, referenceSegments, type Example } from '@telepath/core';
import type { CotState } from './state.js';

export function referenceLoss(s: CotState, batch: Example[]): tf.Scalar {
  return tf.tidy(() => {
    const p = packSegments(
      batch.map((ex) => referenceSegments(s.tokenizer, ex, s.config.variant === 'cot')),
      s.tokenizer.padId,
      s.lm.config.contextLength,
    );
    const out = s.lm.forward(s.lm.embed(p.ids)); // [B, T, V]; right padding: causal attention never sees it
    return maskedCrossEntropy(out.logits, p.targets, p.lossMask);
  });
}
