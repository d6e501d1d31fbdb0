import * as tf from '@tensorflow/tfjs-core';
import { encodeExample, initBackend, Rng, type Example } from '@telepath/core';
import { expectNoLeak } from '@telepath/core/testing';
import { beforeAll, describe, expect, it } from 'vitest';
import { cot } from './method.js';
import { referenceLoss } from './loss.js';
import type { CotState } from './state.js';
import { tinyLmFor } from './testing.js';

beforeAll(async () => {
  await initBackend('cpu', { quiet: true });
});

/** Questions with chains of 0–7 steps, so rows differ in length by up to ~5×. */
function varied(count: number): Example[] {
  const rng = new Rng(3);
  return Array.from({ length: count }, (_, i) => {
    const steps = Array.from({ length: rng.int(8) }, (_, k) => `${k}+${i % 10}=${k + (i % 10)}`);
    return { id: `v${i}`, question: `q ${i % 10}?`, steps, answer: String(i % 7) };
  });
}

function stateWith(lengthBuckets: number, data: Example[], promptLossWeight = 0): CotState {
  const { lm, tokenizer } = tinyLmFor(data, 96);
  return cot.init(
    { lm, tokenizer, rng: new Rng(0), backend: 'cpu' },
    { ...cot.defaults, lengthBuckets, promptLossWeight },
  ) as CotState;
}

describe('cot loss in length buckets', () => {
  it('gives the loss and the gradient of one padded batch (same token mean), without leaks', async () => {
    const data = varied(24);
    const one = stateWith(1, data);
    const four = stateWith(4, data);
    const lossAndGrads = (s: CotState) =>
      tf.tidy(() => {
        const vars = [...s.lm.params.values()];
        const { value, grads } = tf.variableGrads(() => referenceLoss(s, data), vars);
        return { loss: value.dataSync()[0], grads: vars.map((v) => grads[v.name].dataSync().slice()) };
      });
    const a = lossAndGrads(one);
    const b = lossAndGrads(four);
    expect(Math.abs(a.loss - b.loss)).toBeLessThan(1e-5);
    let worst = 0;
    a.grads.forEach((g, i) => g.forEach((x, j) => (worst = Math.max(worst, Math.abs(x - b.grads[i][j])))));
    expect(worst).toBeLessThan(1e-5);
    expect(a.grads.some((g) => g.some((x) => x !== 0))).toBe(true);
    await expectNoLeak(() => tf.tidy(() => void referenceLoss(four, data)));
    one.dispose();
    four.dispose();
  }, 30_000); // ≈ 3 s alone, 7 s beside a training run

  it('rejects a bucket count that is not a positive integer', () => {
    expect(() => stateWith(0, varied(2))).toThrow(/lengthBuckets must be an integer ≥ 1/);
  });
});

describe('cot loss on the question', () => {
  it('weights the question tokens by promptLossWeight: the loss is the weighted mean of two fixed sums', () => {
    const data = varied(12);
    const loss = (w: number) => {
      const s = stateWith(4, data, w);
      const value = tf.tidy(() => referenceLoss(s, data).dataSync()[0]);
      s.dispose();
      return value;
    };
    const probe = stateWith(1, data);
    const coded = data.map((ex) => encodeExample(probe.tokenizer, ex));
    probe.dispose();
    const promptTargets = coded.reduce((a, e) => a + e.prompt.length - 1, 0); // <bos> is not a target
    const traceTargets = coded.reduce((a, e) => a + e.reasoning.length + e.answer.length, 0);
    // L(w) = (w·Sq + St) / (w·nq + nt), St from w = 0 and Sq from w = 1; w = 3 must then follow
    const traceSum = loss(0) * traceTargets;
    const questionSum = loss(1) * (promptTargets + traceTargets) - traceSum;
    const predicted = (3 * questionSum + traceSum) / (3 * promptTargets + traceTargets);
    expect(Math.abs(loss(3) - predicted)).toBeLessThan(1e-4);
    expect(Math.abs(loss(1) - loss(0))).toBeGreaterThan(1e-3); // the question's tokens do enter
  });

  it('rejects a negative or non-finite weight', () => {
    expect(() => stateWith(1, varied(2), -0.5)).toThrow(/promptLossWeight must be a finite number ≥ 0/);
  });
});
