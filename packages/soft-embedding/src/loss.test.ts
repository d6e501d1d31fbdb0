import * as tf from '@tensorflow/tfjs-core';
import { initBackend, Rng, type Example } from '@telepath/core';
import { expectNoLeak } from '@telepath/core/testing';
import { beforeAll, describe, expect, it } from 'vitest';
import type { SoftEmbeddingConfig } from './config.js';
import { continuousLoss, softTokensLoss } from './loss.js';
import type { SoftEmbeddingState } from './state.js';
import { toyState } from './testing.js';

beforeAll(async () => {
  await initBackend('cpu', { quiet: true });
});

/** Toy questions with 0–3 steps and questions of 1–3 numbers, so rows differ in length. */
function varied(count: number): Example[] {
  const rng = new Rng(5);
  return Array.from({ length: count }, (_, i) => {
    const nums = Array.from({ length: 1 + rng.int(3) }, () => rng.int(4));
    const steps = Array.from({ length: rng.int(4) }, (_, k) => `${k}+${nums[0]}=${k + nums[0]}`);
    return { id: `v${i}`, question: `sum ${nums.join(' ')}`, steps, answer: String(i % 7) };
  });
}

type Loss = (s: SoftEmbeddingState, batch: Example[], at: { step: number; phase: string; rng: Rng }) => tf.Scalar;

function lossAndGrads(config: Partial<SoftEmbeddingConfig>, lengthBuckets: number, loss: Loss, phase: string) {
  const data = varied(16);
  const { state } = toyState({ ...config, lengthBuckets }, 0, data);
  const vars = [...state.variables().values()];
  const result = tf.tidy(() => {
    const { value, grads } = tf.variableGrads(() => loss(state, data, { step: 0, phase, rng: new Rng(9) }), vars);
    return { loss: value.dataSync()[0], grads: vars.map((v) => grads[v.name].dataSync().slice()) };
  });
  state.dispose();
  return result;
}

function expectSame(a: ReturnType<typeof lossAndGrads>, b: ReturnType<typeof lossAndGrads>) {
  expect(Math.abs(a.loss - b.loss)).toBeLessThan(1e-5);
  let worst = 0;
  a.grads.forEach((g, i) => g.forEach((x, j) => (worst = Math.max(worst, Math.abs(x - b.grads[i][j])))));
  expect(worst).toBeLessThan(1e-5);
}

describe('soft-embedding losses in length buckets', () => {
  const coconut = { variant: 'continuous-thought' as const, latentTokens: 2, thoughtsPerStep: 1 };

  it('continuous thought: the loss and gradient of one padded batch at every stage', () => {
    for (const phase of ['stage1', 'stage2', 'stage3']) {
      const one = lossAndGrads(coconut, 1, continuousLoss, phase);
      expectSame(one, lossAndGrads(coconut, 4, continuousLoss, phase));
      expect(one.loss).toBeGreaterThan(0);
    }
  });

  it('soft tokens: the loss and gradient of one padded batch, the soft tokens included', () => {
    const config = { variant: 'soft-tokens' as const, latentTokens: 3 };
    expectSame(lossAndGrads(config, 1, softTokensLoss, 'sft'), lossAndGrads(config, 3, softTokensLoss, 'sft'));
  });

  it('leaves no tensors behind, and rejects a bucket count below 1', async () => {
    const data = varied(8);
    const { state } = toyState({ ...coconut, lengthBuckets: 4 }, 0, data);
    const run = () => tf.tidy(() => void continuousLoss(state, data, { step: 0, phase: 'stage2', rng: new Rng(1) }));
    await expectNoLeak(run);
    state.dispose();
    expect(() => toyState({ ...coconut, lengthBuckets: 0 })).toThrow(/lengthBuckets must be an integer ≥ 1, got 0/);
  });
});
