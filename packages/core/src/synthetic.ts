/**
 * A synthetic language for demos and benchmarks: arithmetic progressions modulo the vocabulary,
 * "s, s+d, s+2d, …". Learnable (the loss falls fast) and free of any dataset.
 */
import * as tf from '@tensorflow/tfjs-core';
import { maskedCrossEntropy } from './loss.js';
import type { Rng } from './rng.js';
import type { TinyLm } from './tiny-lm.js';

/** B rows of T+1 ids: row b is s_b + d_b·t mod V, with d_b in 1..maxStride. */
export function progressionBatch(rng: Rng, B: number, T: number, V: number, maxStride = 5): number[][] {
  return Array.from({ length: B }, () => {
    const s = rng.int(V);
    const d = 1 + rng.int(maxStride);
    return Array.from({ length: T + 1 }, (_, t) => (s + d * t) % V);
  });
}

/** Next-token loss of the LM on one progression batch. */
export function progressionLoss(lm: TinyLm, rng: Rng, B: number, T: number): tf.Scalar {
  return tf.tidy(() => {
    const rows = progressionBatch(rng, B, T, lm.config.vocabSize);
    const ids = tf.tensor2d(rows, [B, T + 1], 'int32');
    const x = tf.slice(ids, [0, 0], [B, T]) as tf.Tensor2D;
    const y = tf.slice(ids, [0, 1], [B, T]) as tf.Tensor2D;
    return maskedCrossEntropy(lm.forward(lm.embed(x)).logits, y, tf.onesLike(y) as tf.Tensor2D);
  });
}
