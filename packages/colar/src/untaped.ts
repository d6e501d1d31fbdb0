/**
 * Runs tensor code off the gradient tape. Inside `tf.variableGrads` every op is recorded and
 * its inputs kept until the gradients are computed; GRPO rollouts (dozens of cached decoding
 * steps) run inside the loss but need no gradient, so they run here instead. TF.js records no
 * op while a kernel's own forward function runs, so `fn` runs as the forward function of a
 * custom-gradient op whose gradient is zero. `fn` must return plain data (no live tensors it
 * did not keep).
 */
import * as tf from '@tensorflow/tfjs-core';

export function untaped<T>(fn: () => T): T {
  let out: { value: T } | undefined;
  const op = tf.customGrad((...args: (tf.Tensor | tf.GradSaveFunc)[]) => {
    const x = args[0] as tf.Tensor;
    out = { value: fn() };
    return { value: tf.clone(x), gradFunc: (dy: tf.Tensor) => tf.zerosLike(dy) };
  }) as (x: tf.Tensor) => tf.Tensor;
  const seed = tf.scalar(0);
  tf.dispose([op(seed), seed]);
  if (!out) throw new Error('untaped: the function did not run');
  return out.value;
}
