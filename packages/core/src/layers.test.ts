import * as tf from '@tensorflow/tfjs-core';
import { expect, it } from 'vitest';
import { gelu, layerNorm } from './layers.js';
import { expectClose, forEachBackend } from './testing.js';

forEachBackend((backend, ready) => {
  it('gelu equals the tanh form 0.5·x·(1 + tanh(√(2/π)(x + 0.044715x³)))', (ctx) => {
    if (!ready()) return ctx.skip();
    const xs = [-6, -3, -1.5, -0.5, 0, 0.1, 0.7, 2, 5];
    const expected = xs.map((x) => 0.5 * x * (1 + Math.tanh(Math.sqrt(2 / Math.PI) * (x + 0.044715 * x ** 3))));
    tf.tidy(() => expectClose(gelu(tf.tensor1d(xs)), expected, { rtol: 1e-5, atol: 1e-6 }));
  });

  it('layerNorm normalises the last axis, then scales and shifts', (ctx) => {
    if (!ready()) return ctx.skip();
    tf.tidy(() => {
      const y = layerNorm(
        tf.tensor2d([
          [1, 2, 3, 4],
          [10, 10, 10, 14],
        ]),
        tf.tensor1d([1, 1, 2, 2]),
        tf.tensor1d([0, 0, 0, 1]),
        1e-5,
      );
      const row = (v: number[]) => {
        const m = v.reduce((a, b) => a + b) / v.length;
        const s = Math.sqrt(v.reduce((a, b) => a + (b - m) ** 2, 0) / v.length + 1e-5);
        return v.map((x) => (x - m) / s);
      };
      const r0 = row([1, 2, 3, 4]);
      const r1 = row([10, 10, 10, 14]);
      expectClose(y, [r0[0], r0[1], 2 * r0[2], 2 * r0[3] + 1, r1[0], r1[1], 2 * r1[2], 2 * r1[3] + 1], {
        rtol: 1e-4,
        atol: 1e-5,
      });
      expect(backend).toBeTruthy();
    });
  });
});
