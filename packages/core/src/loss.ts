/**
 * Masked next-token cross-entropy. Letters: B batch, T tokens, V vocab.
 */
import * as tf from '@tensorflow/tfjs-core';

/**
 * Mean negative log-likelihood of `targets` under `logits` over positions where `mask` is 1.
 * logits [B, T, V], targets [B, T] int32, mask [B, T] (0/1, float or int) → scalar.
 * The gradient is written out, (softmax − one-hot) × weight: autodiff through logSumExp and a
 * one-hot product touches the [B·T, V] logits about a dozen times, which made the loss ≈ 30 % of a
 * GSM8K step (6.4 k-token vocabulary); this touches them five times.
 */
export function maskedCrossEntropy(logits: tf.Tensor3D, targets: tf.Tensor2D, mask: tf.Tensor2D): tf.Scalar {
  const [B, T, V] = logits.shape;
  if (targets.shape[0] !== B || targets.shape[1] !== T)
    throw new Error(`maskedCrossEntropy: targets must be [${B}, ${T}], got [${targets.shape}]`);
  if (mask.shape[0] !== B || mask.shape[1] !== T)
    throw new Error(`maskedCrossEntropy: mask must be [${B}, ${T}], got [${mask.shape}]`);
  const N = B * T;
  return tf.tidy(() => {
    const m = tf.reshape(tf.cast(mask, 'float32'), [N]); // [N]
    const weight = tf.div(m, tf.maximum(tf.sum(m), 1)); // [N] each position's share of the mean
    const rows = tf.range(0, N, 1, 'int32'); // [N]
    const cols = tf.reshape(tf.cast(targets, 'int32'), [N]); // [N]
    const at = tf.add(tf.mul(rows, tf.scalar(V, 'int32')), cols); // [N] flat index of each target logit
    const rowCol = tf.stack([rows, cols], 1); // [N, 2] the same cell as (row, column)
    // The gradient reads only what the forward saves: tensors made here are gone by the backward pass.
    const loss = tf.customGrad((...args: (tf.Tensor | tf.GradSaveFunc)[]) => {
      const [flat, save] = args as [tf.Tensor2D, tf.GradSaveFunc];
      const top = tf.max(flat, -1, true); // [N, 1]
      const e = tf.exp(tf.sub(flat, top)); // [N, V]
      const total = tf.sum(e, -1); // [N]
      const lse = tf.add(tf.log(total), tf.reshape(top, [N])); // [N]
      const picked = tf.gather(tf.reshape(flat, [N * V]), at); // [N]
      save([e, total, weight, rowCol]);
      return {
        value: tf.sum(tf.mul(tf.sub(lse, picked), weight)),
        gradFunc: (dy: tf.Tensor, saved: tf.Tensor[]) => {
          const [eSaved, totalSaved, w, targetCells] = saved;
          const wdy = tf.mul(w, dy); // [N]
          const softmaxPart = tf.mul(eSaved, tf.reshape(tf.div(wdy, totalSaved), [N, 1])); // [N, V]
          return tf.sub(softmaxPart, tf.scatterND(targetCells, wdy, [N, V])); // [N, V]
        },
      };
    });
    return loss(tf.reshape(logits, [N, V])) as tf.Scalar;
  });
}
