/** Finite-difference check of the whole model's loss gradient on a tiny model (cpu, float32). */
import * as tf from '@tensorflow/tfjs-core';
import { beforeAll, expect, it } from 'vitest';
import { initBackend } from './backend.js';
import { maskedCrossEntropy } from './loss.js';
import { tinyLm } from './testing.js';

beforeAll(async () => {
  await initBackend('cpu', { quiet: true });
});

it('analytic gradients match central differences for every parameter kind', () => {
  const lm = tinyLm({ initStd: 0.5 });
  const x = tf.tensor2d(
    [
      [1, 2, 3, 4],
      [5, 6, 7, 8],
    ],
    [2, 4],
    'int32',
  );
  const y = tf.tensor2d(
    [
      [2, 3, 4, 5],
      [6, 7, 8, 9],
    ],
    [2, 4],
    'int32',
  );
  const mask = tf.tensor2d([
    [1, 1, 1, 0],
    [1, 1, 1, 1],
  ]);
  const lossValue = () => tf.tidy(() => maskedCrossEntropy(lm.forward(lm.embed(x)).logits, y, mask).dataSync()[0]);
  const { grads } = tf.variableGrads(() => maskedCrossEntropy(lm.forward(lm.embed(x)).logits, y, mask));
  const names = [
    'wte',
    'wpe',
    'h0.ln1.g',
    'h0.attn.wq',
    'h0.attn.wk',
    'h1.attn.bv',
    'h1.attn.wo',
    'h0.mlp.wfc',
    'h1.mlp.bproj',
    'lnf.b',
  ];
  const eps = 1e-2;
  let checked = 0;
  for (const name of names) {
    const v = lm.params.get(name)!;
    const g = grads[v.name].dataSync();
    // The three entries with the largest gradient magnitude in this tensor.
    const order = Array.from(g.keys())
      .sort((i, j) => Math.abs(g[j]) - Math.abs(g[i]))
      .slice(0, 3);
    for (const i of order) {
      const base = v.dataSync().slice();
      const at = (delta: number) => {
        const w = base.slice();
        w[i] += delta;
        v.assign(tf.tensor(w, v.shape));
        return lossValue();
      };
      const numeric = (at(eps) - at(-eps)) / (2 * eps);
      v.assign(tf.tensor(base, v.shape));
      expect(Math.abs(numeric - g[i]), `${name}[${i}]: analytic ${g[i]}, numeric ${numeric}`).toBeLessThan(
        2e-3 + 2e-2 * Math.abs(g[i]),
      );
      checked++;
    }
  }
  expect(checked).toBe(30);
  tf.dispose([x, y, mask, ...Object.values(grads)]);
  lm.dispose();
});
