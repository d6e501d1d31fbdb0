/**
 * Rotary position embeddings (RoFormer, Su et al. 2021, §3.3) for TinyLm's attention: the
 * cos/sin tables of every position and the rotation of queries and keys at given positions.
 */
import * as tf from '@tensorflow/tfjs-core';

/** RoFormer §3.3: θ_i = 10000^(−2i/D). */
const ROTARY_BASE = 10000;

export interface RotaryTables {
  cos: tf.Tensor2D; // [contextLength, D]
  sin: tf.Tensor2D; // [contextLength, D]
  /** rotateHalf as a matrix: x·R = [−x₂, x₁] for x = [x₁, x₂] (a matMul, no slicing in the gradient). */
  half: tf.Tensor2D; // [D, D]
}

/** cos/sin of position p · θ_i, with pair i made of channels i and i + D/2 (the rotate-half layout). */
export function rotaryTables(contextLength: number, D: number): RotaryTables {
  const half = D / 2;
  const cos = new Float32Array(contextLength * D);
  const sin = new Float32Array(contextLength * D);
  for (let p = 0; p < contextLength; p++) {
    for (let j = 0; j < D; j++) {
      const angle = p * Math.pow(ROTARY_BASE, (-2 * (j % half)) / D);
      cos[p * D + j] = Math.cos(angle);
      sin[p * D + j] = Math.sin(angle);
    }
  }
  const r = new Float32Array(D * D);
  for (let i = 0; i < half; i++) {
    r[(i + half) * D + i] = -1; // out[i] = −x[i + D/2]
    r[i * D + i + half] = 1; // out[i + D/2] = x[i]
  }
  return {
    cos: tf.keep(tf.tensor2d(cos, [contextLength, D])),
    sin: tf.keep(tf.tensor2d(sin, [contextLength, D])),
    half: tf.keep(tf.tensor2d(r, [D, D])),
  };
}

/** The rotation of queries or keys [B, H, T, D] at positions [B, T]: x·cos + rotateHalf(x)·sin. */
export function rotation(r: RotaryTables, pos: tf.Tensor2D): (t: tf.Tensor4D) => tf.Tensor4D {
  const [B, T] = pos.shape;
  const D = r.half.shape[0];
  const cos = tf.reshape(tf.gather(r.cos, pos), [B, 1, T, D]); // [B, 1, T, D]
  const sin = tf.reshape(tf.gather(r.sin, pos), [B, 1, T, D]);
  return (t) => {
    const H = t.shape[1];
    const turned = tf.reshape(tf.matMul(tf.reshape(t, [B * H * T, D]), r.half), [B, H, T, D]); // [B, H, T, D]
    return tf.add(tf.mul(t, cos), tf.mul(turned, sin)) as tf.Tensor4D;
  };
}
