/**
 * The fused kernels (LayerNorm, attention softmax, AdamW; GELU in elementwise.test.ts) with their
 * registered gradients on native vs the composed ops on cpu (values and gradients). Core's layers
 * and optimiser call them the same way (packages/core/src/fused.ts); core's fused.test.ts checks
 * its own fused and plain paths against each other.
 */
import * as tf from '@tensorflow/tfjs';
import { describe, expect, it } from 'vitest';
import { FUSED_KERNELS as K } from './index.js';
import { maxRelError, normRelError, randomValues, runOn, setupNative } from './testing.js';

const TOL = 1e-5;
const setup = await setupNative(tf);
if (!setup.available) console.warn(`[backend-native] skipping native tests: ${setup.reason}`);

type T = tf.Tensor;
const native = () => tf.getBackend() === 'native';
/** The fused kernel on native, the composed maths (core's plain-op path) elsewhere. */
const ops = {
  layerNorm: (x: T, g: T, b: T, eps: number): T => {
    if (native()) return (tf.engine().runKernel(K.layerNorm, { x, gamma: g, beta: b }, { eps }) as T[])[0];
    const { mean, variance } = tf.moments(x, -1, true);
    return tf.add(tf.mul(tf.mul(tf.sub(x, mean), tf.rsqrt(tf.add(variance, eps))), g), b);
  },
  scaledMaskedSoftmax: (x: T, bias: T, scale: number): T =>
    native()
      ? (tf.engine().runKernel(K.scaledMaskedSoftmax, { x, bias }, { scale }) as T)
      : tf.softmax(tf.add(tf.mul(x, scale), bias)),
  adamW: (
    p: T,
    m: T,
    v: T,
    g: T,
    o: { lr: number; beta1: number; beta2: number; eps: number; weightDecay: number; step: number },
  ): T[] => {
    const c1 = 1 - o.beta1 ** o.step;
    const c2 = 1 - o.beta2 ** o.step;
    if (native())
      return tf
        .engine()
        .runKernel(
          K.adamW,
          { param: p, m, v, grad: g },
          { lr: o.lr, beta1: o.beta1, beta2: o.beta2, eps: o.eps, weightDecay: o.weightDecay, c1, c2 },
        ) as T[];
    const m1 = tf.add(tf.mul(m, o.beta1), tf.mul(g, 1 - o.beta1));
    const v1 = tf.add(tf.mul(v, o.beta2), tf.mul(tf.mul(g, g), 1 - o.beta2));
    let update = tf.div(tf.div(m1, c1), tf.add(tf.sqrt(tf.div(v1, c2)), o.eps));
    if (o.weightDecay > 0) update = tf.add(update, tf.mul(p, o.weightDecay));
    return [tf.sub(p, tf.mul(update, o.lr)), m1, v1];
  },
};

describe.skipIf(!setup.available)('fused kernels', () => {
  it('layerNorm and its gradients (x, gamma, beta) match the composed ops', async () => {
    for (const [rows, C] of [
      [1, 1],
      [7, 33],
      [33, 129],
      [257, 128],
    ]) {
      const x = randomValues(800 + C, rows * C, -3, 5);
      const g = randomValues(900 + C, C, 0.5, 1.5);
      const b = randomValues(1000 + C, C);
      const dy = randomValues(1100 + C, rows * C);
      const f = () => {
        const xs = tf.tensor(x, [rows, C]);
        const gs = tf.tensor(g, [C]);
        const bs = tf.tensor(b, [C]);
        const loss = (u: tf.Tensor, v: tf.Tensor, w: tf.Tensor) =>
          tf.sum(tf.mul(ops.layerNorm(u, v, w, 1e-5), tf.tensor(dy, [rows, C])));
        const grads = tf.grads(loss as (...a: tf.Tensor[]) => tf.Tensor)([xs, gs, bs]);
        return [ops.layerNorm(xs, gs, bs, 1e-5), ...grads];
      };
      const want = await runOn(tf, 'cpu', f);
      const got = await runOn(tf, 'native', f);
      expect(maxRelError(got[0], want[0]).err, `y [${rows},${C}]`).toBeLessThan(TOL);
      // Gradients are sums (over rows or columns): compared norm-wise.
      ['dx', 'dgamma', 'dbeta'].forEach((name, i) =>
        expect(normRelError(got[i + 1], want[i + 1]), `${name} [${rows},${C}]`).toBeLessThan(TOL),
      );
    }
  });

  it('layerNorm leaves no tensors behind, with and without gradients', async () => {
    await tf.setBackend('native');
    const x = tf.tensor(randomValues(1, 4 * 8), [4, 8]);
    const g = tf.ones([8]);
    const b = tf.zeros([8]);
    const before = tf.memory().numTensors;
    tf.dispose(tf.tidy(() => ops.layerNorm(x, g, b, 1e-5)));
    tf.dispose(
      tf.tidy(() =>
        tf.grads(((u: tf.Tensor, v: tf.Tensor, w: tf.Tensor) => tf.sum(ops.layerNorm(u, v, w, 1e-5))) as (
          ...a: tf.Tensor[]
        ) => tf.Tensor)([x, g, b]),
      ),
    );
    // Only x on the gradient path: the kernel's unused dgamma and dbeta are freed too.
    tf.dispose(tf.grad((u: tf.Tensor) => tf.sum(ops.layerNorm(u, g, b, 1e-5)))(x));
    expect(tf.memory().numTensors).toBe(before);
    tf.dispose([x, g, b]);
  });

  it('scaled masked softmax and its gradients (x and a broadcast bias) match the composed ops', async () => {
    for (const [xShape, bShape] of [
      [
        [2, 3, 7, 33],
        [2, 1, 7, 33],
      ],
      [
        [2, 3, 7, 33],
        [7, 33],
      ],
      [
        [5, 129],
        [5, 1],
      ],
      [[1, 1], [1]],
    ]) {
      const size = (s: number[]) => s.reduce((p, d) => p * d, 1);
      const x = randomValues(1300 + size(xShape), size(xShape), -4, 4);
      const b = randomValues(1400 + size(bShape), size(bShape), -3, 0).map((v, i) => (i % 5 === 0 ? -1e9 : v));
      const dy = randomValues(1500, size(xShape));
      const f = () => {
        const xs = tf.tensor(x, xShape);
        const bs = tf.tensor(b, bShape);
        const loss = (u: tf.Tensor, w: tf.Tensor) =>
          tf.sum(tf.mul(ops.scaledMaskedSoftmax(u, w, 0.37), tf.tensor(dy, xShape)));
        return [ops.scaledMaskedSoftmax(xs, bs, 0.37), ...tf.grads(loss as (...a: tf.Tensor[]) => tf.Tensor)([xs, bs])];
      };
      const want = await runOn(tf, 'cpu', f);
      const got = await runOn(tf, 'native', f);
      expect(maxRelError(got[0], want[0]).err, `y [${xShape}] + [${bShape}]`).toBeLessThan(TOL);
      expect(normRelError(got[1], want[1]), `dx [${xShape}]`).toBeLessThan(TOL);
      // A bias constant along the softmax axis has an exactly zero gradient (rounding noise on both backends).
      if (bShape[bShape.length - 1] === 1)
        expect(Math.max(...Array.from(got[2], Math.abs)), `dbias [${bShape}]`).toBeLessThan(1e-6);
      else expect(normRelError(got[2], want[2]), `dbias [${bShape}]`).toBeLessThan(TOL);
    }
  });

  it('adamW update matches the composed update', async () => {
    const n = 33 * 129;
    const [p, m, v, g] = [1, 2, 3, 4].map((s) => randomValues(1200 + s, n));
    const vPos = v.map(Math.abs);
    for (const weightDecay of [0, 0.01]) {
      const f = () =>
        ops.adamW(tf.tensor(p), tf.tensor(m), tf.tensor(vPos), tf.tensor(g), {
          lr: 1e-3,
          beta1: 0.9,
          beta2: 0.999,
          eps: 1e-8,
          weightDecay,
          step: 3,
        });
      const want = await runOn(tf, 'cpu', f);
      const got = await runOn(tf, 'native', f);
      ['param', 'm', 'v'].forEach((name, i) =>
        expect(maxRelError(got[i], want[i]).err, `${name} wd ${weightDecay}`).toBeLessThan(TOL),
      );
    }
  });
});
