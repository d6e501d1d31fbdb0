/**
 * Training a batch in length groups: the rows sorted by length and cut into k groups, each padded
 * to its own longest row, so less padding is computed. The token mean over the whole batch is
 * Σ_g (n_g / n) · mean_g (n_g trained targets in group g), the same loss and gradient as one
 * padded batch. The references (@telepath/cot) and Coconut (@telepath/soft-embedding) train so.
 */
import * as tf from '@tensorflow/tfjs-core';

/** Row indices sorted by length and cut into at most `k` groups of near-equal size (non-empty). */
export function lengthGroups(lengths: readonly number[], k: number): number[][] {
  const order = lengths.map((_, i) => i).sort((a, b) => lengths[a] - lengths[b] || a - b);
  const parts = Math.min(k, order.length);
  if (parts <= 1) return [lengths.map((_, i) => i)];
  return Array.from({ length: parts }, (_, g) =>
    order.slice(Math.floor((g * order.length) / parts), Math.floor(((g + 1) * order.length) / parts)),
  );
}

/** The token mean over every group from each group's mean loss and trained-target count. */
export function groupTokenMean(groups: readonly { loss: tf.Scalar; targets: number }[]): tf.Scalar {
  if (groups.length === 1) return groups[0].loss;
  const total = Math.max(
    groups.reduce((a, g) => a + g.targets, 0),
    1,
  );
  return tf.tidy(() => tf.addN(groups.map((g) => tf.mul(g.loss, g.targets / total))) as tf.Scalar);
}
