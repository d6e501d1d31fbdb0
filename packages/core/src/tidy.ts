/**
 * `tf.tidy` with the callback's own return type: tidy keeps every tensor reachable from the
 * returned value (nested objects and arrays included) and disposes the rest, but its typings
 * only accept `TensorContainer`, which our interfaces (e.g. `KvCache`) are not declared as.
 */
import * as tf from '@tensorflow/tfjs-core';

export function tidy<T>(fn: () => T): T {
  return tf.tidy(fn as unknown as () => tf.TensorContainer) as unknown as T;
}

/** A variable initialised from `value`, which is then disposed (tf.variable keeps its own reference). */
export function variableFrom(value: tf.Tensor, trainable: boolean, name: string): tf.Variable {
  const v = tf.variable(value, trainable, name);
  value.dispose();
  return v;
}

let variableCount = 0;

/**
 * `name#<n>` with n unique in this process. TF.js registers every live variable under a global
 * name, so two instances of one model (two arms, a test's second state) need distinct names; the
 * checkpoints store variables by their map keys, never by these names.
 */
export function uniqueVariableName(name: string): string {
  return `${name}#${variableCount++}`;
}
