/**
 * Matrix products without transpose flags. The wasm backend runs `matMul` with
 * `transposeA`/`transposeB` 9–14× slower than a plain product (docs/engineering-notes.md §2, §5), so every
 * transposed product in Telepath goes through `matMulT`, which materialises rank-2 transposes
 * explicitly and calls the plain kernel. Higher ranks keep the flagged call.
 */
import * as tf from '@tensorflow/tfjs-core';

/** a·b with optional transposes; rank-2 operands are transposed explicitly. */
export function matMulT<R extends tf.Rank>(
  a: tf.Tensor<R>,
  b: tf.Tensor<R>,
  transposeA = false,
  transposeB = false,
): tf.Tensor<R> {
  if (a.rank === 2 && b.rank === 2) {
    const at = transposeA ? tf.transpose(a) : a;
    const bt = transposeB ? tf.transpose(b) : b;
    return tf.matMul(at as tf.Tensor2D, bt as tf.Tensor2D) as unknown as tf.Tensor<R>;
  }
  return tf.matMul(a, b, transposeA, transposeB) as tf.Tensor<R>;
}

/** [..., K] · [K, N] → [..., N]: folds leading dimensions into one and uses a rank-2 product. */
export function linear(x: tf.Tensor, w: tf.Tensor, bias?: tf.Tensor): tf.Tensor {
  const k = x.shape[x.rank - 1];
  if (k !== w.shape[0])
    throw new Error(`linear: input width ${k} does not match weight rows ${w.shape[0]} (weight shape [${w.shape}])`);
  const lead = x.shape.slice(0, -1);
  const flat = tf.reshape(x, [-1, k]) as tf.Tensor2D; // [N, K]
  let y: tf.Tensor = tf.matMul(flat, w as tf.Tensor2D); // [N, N_out]
  if (bias) y = addBias(y as tf.Tensor2D, bias);
  return tf.reshape(y, [...lead, w.shape[1]!]);
}

/**
 * y + b for y [N, F], b [F], whose bias gradient is the product ones[1, N] · dy instead of a
 * column sum: wasm reduces over the first axis 10–20× slower than over the last
 * (docs/engineering-notes.md §2), while the product takes the fast matMul path.
 */
const addBias = tf.customGrad((...args: (tf.Tensor | tf.GradSaveFunc)[]) => {
  const [y, b] = args as [tf.Tensor2D, tf.Tensor1D];
  return {
    value: tf.add(y, b),
    gradFunc: (dy: tf.Tensor) => {
      const n = dy.shape[0]!;
      const db = tf.reshape(tf.matMul(tf.ones([1, n]), dy as tf.Tensor2D), b.shape); // [F]
      return [dy, db];
    },
  };
}) as (y: tf.Tensor2D, b: tf.Tensor) => tf.Tensor2D;
