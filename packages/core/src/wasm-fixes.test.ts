import * as tf from '@tensorflow/tfjs-core';
import { describe, expect, it } from 'vitest';
import { initBackend } from './backend.js';
import { Rng } from './rng.js';
import { expectClose } from './testing.js';

/** Gradients of matMul (all four flag combinations) and gather, computed on one backend. */
function grads(backend: string): number[][] {
  const rng = new Rng(4);
  const a = rng.normalArray(7 * 5);
  const b = rng.normalArray(5 * 3);
  const table = rng.normalArray(6 * 4);
  const out: number[][] = [];
  for (const [ta, tb] of [
    [false, false],
    [false, true],
    [true, false],
    [true, true],
  ] as const) {
    const A = tf.tensor2d(a, ta ? [5, 7] : [7, 5]);
    const B = tf.tensor2d(b, tb ? [3, 5] : [5, 3]);
    const g = tf.grads((x: tf.Tensor, y: tf.Tensor) =>
      tf.sum(tf.mul(tf.matMul(x as tf.Tensor2D, y as tf.Tensor2D, ta, tb), tf.reshape(tf.range(1, 22), [7, 3]))),
    )([A, B]);
    out.push(Array.from(g[0].dataSync()), Array.from(g[1].dataSync()));
    tf.dispose([A, B, ...g]);
  }
  const T = tf.tensor2d(table, [6, 4]);
  const idx = tf.tensor2d(
    [
      [0, 5, 5],
      [2, 0, 1],
    ],
    [2, 3],
    'int32',
  );
  const gg = tf.grad((t: tf.Tensor) => tf.sum(tf.mul(tf.gather(t, idx), tf.reshape(tf.range(0, 24), [2, 3, 4]))))(T);
  out.push(Array.from(gg.dataSync()));
  tf.dispose([T, idx, gg]);
  expect(tf.getBackend()).toBe(backend);
  return out;
}

describe('wasm fixes', () => {
  it('matMul and gather gradients on wasm equal the cpu backend', async () => {
    await initBackend('cpu', { quiet: true });
    const onCpu = grads('cpu');
    await initBackend('wasm', { quiet: true });
    const onWasm = grads('wasm');
    onCpu.forEach((g, i) => expectClose(onWasm[i], g, { rtol: 1e-5, atol: 1e-5 }));
  });
});
