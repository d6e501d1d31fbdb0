import * as tf from '@tensorflow/tfjs-core';
import { beforeAll, expect, it } from 'vitest';
import { initBackend } from './backend.js';
import { embeddingStd } from './embedding-std.js';
import { tinyLm } from './testing.js';

beforeAll(async () => {
  await initBackend('cpu', { quiet: true });
});

/** The value of a scalar tensor, which is then disposed. */
const valueOf = (t: tf.Scalar) => {
  const v = t.dataSync()[0];
  t.dispose();
  return v;
};

// Moved here with embeddingStd from CoLaR's model tests.
it('measures the embedding scale as the std of the embedding table', () => {
  const lm = tinyLm({ initStd: 0.05 });
  const w = Array.from(lm.params.get('wte')!.dataSync());
  const mu = w.reduce((a, b) => a + b, 0) / w.length;
  const std = Math.sqrt(w.reduce((a, b) => a + (b - mu) ** 2, 0) / w.length);
  expect(valueOf(embeddingStd(lm))).toBeCloseTo(std, 6);
  expect(valueOf(embeddingStd(lm))).toBeGreaterThan(0.03);
  lm.dispose();
});

it('embeddingStd is the population std of the embedding table, as the methods measured it before', () => {
  const lm = tinyLm({ initStd: 0.3 });
  const values = Array.from(lm.params.get('wte')!.dataSync());
  const mean = values.reduce((a, b) => a + b, 0) / values.length;
  const std = Math.sqrt(values.reduce((a, b) => a + (b - mean) ** 2, 0) / values.length);
  const t = embeddingStd(lm);
  expect(t.dataSync()[0]).toBeCloseTo(std, 6);
  // CoLaR measured Math.sqrt of the variance; the coprocessor tf.sqrt: one float32 either way.
  const variance = tf.tidy(() => tf.moments(lm.params.get('wte')!).variance.dataSync()[0]);
  expect(t.dataSync()[0]).toBe(Math.fround(Math.sqrt(variance)));
  t.dispose();
  lm.dispose();
});
