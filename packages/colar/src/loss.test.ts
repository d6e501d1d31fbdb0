import * as tf from '@tensorflow/tfjs-core';
import { encodeExample, initBackend, Rng } from '@telepath/core';
import { expectClose, expectNoLeak } from '@telepath/core/testing';
import { beforeAll, describe, expect, it } from 'vitest';
import { sftRow } from './layout.js';
import { gaussianEntropy, gaussianNll, sftLoss, softMse, stopGradient } from './loss.js';
import { unitsForward } from './model.js';
import { toyState } from './testing.js';

beforeAll(async () => {
  await initBackend('cpu', { quiet: true });
});

/** Central differences of f at x (float32: eps 1e-2) against tf's gradient, entry by entry. */
function checkGradient(f: (x: tf.Tensor) => tf.Scalar, x0: number[], shape: number[]): void {
  const x = tf.tensor(x0, shape);
  const g = tf.grad(f)(x);
  const analytic = g.dataSync();
  const eps = 1e-2;
  x0.forEach((_, i) => {
    const at = (d: number) =>
      tf.tidy(() => {
        const v = x0.slice();
        v[i] += d;
        return f(tf.tensor(v, shape)).dataSync()[0];
      });
    const numeric = (at(eps) - at(-eps)) / (2 * eps);
    expect(Math.abs(numeric - analytic[i]), `entry ${i}: analytic ${analytic[i]}, numeric ${numeric}`).toBeLessThan(
      2e-3 + 2e-2 * Math.abs(analytic[i]),
    );
  });
  tf.dispose([x, g]);
}

describe('latent losses', () => {
  it('soft-MSE, NLL and entropy equal their formulas on hand numbers', () => {
    const mean = tf.tensor2d([[0, 1]]);
    const logStd = tf.tensor2d([[Math.log(0.5), 0]]);
    const eps = tf.tensor2d([[1, -2]]);
    const target = tf.tensor2d([[1, 0]]);
    // μ + σε = (0.5, −1); squared errors 0.25 and 1.
    expectClose(softMse(mean, logStd, eps, target), [(0.25 + 1) / 2]);
    const nll = (e: number, m: number, s: number) =>
      (e - m) ** 2 / (2 * s * s) + Math.log(s) + 0.5 * Math.log(2 * Math.PI);
    expectClose(gaussianNll(mean, logStd, target), [(nll(1, 0, 0.5) + nll(0, 1, 1)) / 2], { rtol: 1e-5 });
    expectClose(
      gaussianEntropy(logStd),
      [(0.5 * Math.log(2 * Math.PI * Math.E * 0.25) + 0.5 * Math.log(2 * Math.PI * Math.E)) / 2],
      { rtol: 1e-5 },
    );
    tf.dispose([mean, logStd, eps, target]);
  });

  it('soft-MSE gradients match central differences (mean, log-std)', () => {
    const eps = tf.tensor2d([
      [0.3, -1.2, 0.7],
      [1.5, 0.1, -0.4],
    ]);
    const target = tf.tensor2d([
      [0.2, -0.5, 1],
      [0, 0.4, -1],
    ]);
    const logStd = tf.tensor2d([
      [-0.5, 0.2, 0],
      [0.1, -1, 0.3],
    ]);
    const mean = tf.tensor2d([
      [0.1, 0.3, -0.2],
      [0.5, -0.6, 0.2],
    ]);
    checkGradient(
      (m) => tf.sum(softMse(m, logStd, eps, target)) as tf.Scalar,
      [0.1, 0.3, -0.2, 0.5, -0.6, 0.2],
      [2, 3],
    );
    checkGradient((l) => tf.sum(softMse(mean, l, eps, target)) as tf.Scalar, [-0.5, 0.2, 0, 0.1, -1, 0.3], [2, 3]);
    tf.dispose([eps, target, logStd, mean]);
  });

  it('NLL gradients match central differences (mean, log-std)', () => {
    const target = tf.tensor2d([
      [0.2, -0.5, 1],
      [0, 0.4, -1],
    ]);
    const logStd = tf.tensor2d([
      [-0.5, 0.2, 0],
      [0.1, -1, 0.3],
    ]);
    const mean = tf.tensor2d([
      [0.1, 0.3, -0.2],
      [0.5, -0.6, 0.2],
    ]);
    checkGradient((m) => tf.sum(gaussianNll(m, logStd, target)) as tf.Scalar, [0.1, 0.3, -0.2, 0.5, -0.6, 0.2], [2, 3]);
    checkGradient((l) => tf.sum(gaussianNll(mean, l, target)) as tf.Scalar, [-0.5, 0.2, 0, 0.1, -1, 0.3], [2, 3]);
    tf.dispose([target, logStd, mean]);
  });

  it('stopGradient passes values and blocks gradients', () => {
    const x = tf.tensor1d([1, 2]);
    const g = tf.grad((v: tf.Tensor) => tf.sum(tf.add(tf.mul(v, 3), tf.square(stopGradient(v)))) as tf.Scalar)(x);
    expectClose(g, [3, 3]);
    tf.dispose([x, g]);
  });
});

describe('SFT rows and loss', () => {
  it('compresses the chain to 1 + ceil(n / c) positions, labels each group with one of its tokens, and masks the prompt', () => {
    const { state, data, tokenizer } = toyState();
    const ex = data[0];
    const n = encodeExample(tokenizer, ex).reasoning.length;
    for (const c of [1, 2, 3, 5]) {
      const r = sftRow(tokenizer, ex, c, state.config.speedPrompt, new Rng(c));
      expect(r.chainEnd - r.chainStart + 1).toBe(1 + Math.ceil(n / c));
      expect(r.layout.source[(r.layout.units[r.chainStart] as { members: number[] }).members[0]]).toBe(tokenizer.sepId); // ### alone in group 0
      for (let u = r.chainStart; u <= r.chainEnd; u++) {
        const unit = r.layout.units[u] as { members: number[] };
        expect(unit.members.map((j) => r.layout.source[j])).toContain(r.labels[u]);
      }
      expect(r.labels[r.chainEnd + 1]).toBe(tokenizer.sepId); // after the last group: the closing ###
      expect(r.labels[r.labels.length - 1]).toBe(tokenizer.eosId);
    }
    expect(tokenizer.decode(sftRow(tokenizer, ex, 3, state.config.speedPrompt, new Rng(0)).layout.source)).toContain(
      'Thinking speed: 3###',
    );
    state.dispose();
  });

  it('is finite, reaches the head and the embeddings, and leaks nothing (soft-MSE and NLL)', async () => {
    for (const latentLoss of ['soft-mse', 'nll'] as const) {
      const { state, data } = toyState({ latentLoss, trainEmbeddings: true });
      const vars = [...state.trainable('sft').values()];
      const { value, grads } = tf.variableGrads(() => sftLoss(state, data.slice(0, 4), 2, new Rng(0)), vars);
      expect(Number.isFinite(value.dataSync()[0])).toBe(true);
      for (const name of ['colar.head.w1', 'colar.head.wMean', 'colar.head.wLogStd', 'wte', 'h0.attn.wq']) {
        const v = state.trainable('sft').get(name)!;
        expect(
          tf.tidy(() => tf.sum(tf.abs(grads[v.name])).dataSync()[0]),
          name,
        ).toBeGreaterThan(0);
      }
      tf.dispose([value, ...Object.values(grads)]);
      await expectNoLeak(() =>
        tf.tidy(() => {
          sftLoss(state, data.slice(0, 4), 3, new Rng(1));
        }),
      );
      state.dispose();
    }
  });

  it('pads the units to a wider width (as the loss does with paddedWidth) without changing the real columns', () => {
    const { state, data, tokenizer } = toyState();
    const layouts = data.slice(0, 2).map((ex) => sftRow(tokenizer, ex, 2, state.config.speedPrompt, new Rng(0)).layout);
    const U = Math.max(...layouts.map((l) => l.units.length));
    tf.tidy(() => {
      const exact = unitsForward(state, layouts, 'scaled-sum');
      const wide = unitsForward(state, layouts, 'scaled-sum', U + 3);
      expect(exact.logits.shape[1]).toBe(U);
      expect(wide.logits.shape[1]).toBe(U + 3);
      expectClose(tf.slice(wide.logits, [0, 0, 0], [-1, U, -1]), exact.logits, { rtol: 1e-4, atol: 1e-5 });
      expectClose(tf.slice(wide.hidden, [0, 0, 0], [-1, U, -1]), exact.hidden, { rtol: 1e-4, atol: 1e-5 });
      expect(() => unitsForward(state, layouts, 'scaled-sum', U - 1)).toThrow(/width must be an integer ≥/);
    });
    state.dispose();
  });

  it('rejects a sequence longer than the context', () => {
    const { state, data } = toyState({}, 0, { contextLength: 12 });
    expect(() => sftLoss(state, data.slice(0, 2), 1, new Rng(0))).toThrow(/exceeds the context length 12/);
    state.dispose();
  });
});
