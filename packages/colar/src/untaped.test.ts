import * as tf from '@tensorflow/tfjs-core';
import { initBackend } from '@telepath/core';
import { beforeAll, expect, it } from 'vitest';
import { untaped } from './untaped.js';

beforeAll(async () => {
  await initBackend('cpu', { quiet: true });
});

it('runs tensor code inside a gradient computation without keeping its intermediates, and passes errors on', () => {
  const v = tf.variable(tf.ones([8, 8]));
  const chain = () => tf.tidy(() => {
    let x = v as tf.Tensor2D;
    for (let i = 0; i < 10; i++) x = tf.matMul(x, v as tf.Tensor2D);
    return tf.sum(x).dataSync()[0];
  });
  const live = (wrap: boolean) => {
    let inside = 0;
    const before = tf.memory().numTensors;
    const { value, grads } = tf.variableGrads(() => {
      const r = wrap ? untaped(chain) : chain();
      expect(r).toBeCloseTo(8 ** 12, -6);
      inside = tf.memory().numTensors - before;
      return tf.sum(v) as tf.Scalar;
    }, [v]);
    tf.dispose([value, ...Object.values(grads)]);
    return inside;
  };
  expect(live(false)).toBeGreaterThan(10); // the tape keeps every product's inputs
  expect(live(true)).toBeLessThanOrEqual(2);
  expect(() => untaped(() => {
    throw new Error('inner');
  })).toThrow('inner');
  v.dispose();
});
