/**
 * Masked next-token cross-entropy. Letters: B batch, T tokens, V vocab.
 */
import * as tf from '@tensorflow/tfjs-core';

/**
 * Mean negative log-likelihood of `targets` under `logits` over positions where `mask` is 1.
 * logits [B, T, V], targets [B, T] int32, mask [B, T] (0/1, float or int) → scalar.
 */
export function maskedCrossEntropy(logits: tf.Tensor3D, targets: tf.Tensor2D, mask: tf.Tensor2D): tf.Scalar {
  const [B, T, V] = logits.shape;
  if (targets.shape[0] !== B || targets.shape[1] !== T) throw new Error(`maskedCrossEntropy: targets must be [${B}, ${T}], got [${targets.shape}]`);
  if (mask.shape[0] !== B || mask.shape[1] !== T) throw new Error(`maskedCrossEntropy: mask must be [${B}, ${T}], got [${mask.shape}]`);
  return tf.tidy(() => {
    const flat = tf.reshape(logits, [B * T, V]); // [BT, V]
    const lse = tf.logSumExp(flat, -1); // [BT]
    const picked = tf.sum(tf.mul(flat, tf.oneHot(tf.reshape(targets, [B * T]) as tf.Tensor1D, V)), -1); // [BT]
    const m = tf.reshape(tf.cast(mask, 'float32'), [B * T]);
    const total = tf.sum(tf.mul(tf.sub(lse, picked), m));
    return tf.div(total, tf.maximum(tf.sum(m), 1)) as tf.Scalar;
  });
}

/** Per-row mean NLL [B] over masked positions (for sequence log-likelihood scoring). */
export function sequenceNll(logits: tf.Tensor3D, targets: tf.Tensor2D, mask: tf.Tensor2D): tf.Tensor1D {
  const V = logits.shape[2];
  return tf.tidy(() => {
    const lse = tf.logSumExp(logits, -1); // [B, T]
    const picked = tf.sum(tf.mul(logits, tf.oneHot(targets as unknown as tf.Tensor1D, V)), -1); // [B, T]
    const m = tf.cast(mask, 'float32');
    return tf.div(tf.sum(tf.mul(tf.sub(lse, picked), m), -1), tf.maximum(tf.sum(m, -1), 1)) as tf.Tensor1D;
  });
}
