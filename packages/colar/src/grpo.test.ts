import * as tf from '@tensorflow/tfjs-core';
import { initBackend, Rng, train } from '@telepath/core';
import { expectClose, expectNoLeak } from '@telepath/core/testing';
import { beforeAll, describe, expect, it } from 'vitest';
import { rollout } from './generate.js';
import {
  groupAdvantages,
  groupsWithSignal,
  grpoLoss,
  policyLogProbs,
  ppoClipLoss,
  prepareRl,
  refillBuffer,
  rlLoss,
  sequenceLosses,
  type BufferedRollout,
} from './grpo.js';
import { promptIds } from './layout.js';
import { TOY_OPTIM, toyState } from './testing.js';

beforeAll(async () => {
  await initBackend('cpu', { quiet: true });
});

describe('GRPO on toy numbers', () => {
  it('normalises rewards within each group: (r − mean)/(std + 1e-8), sample std', () => {
    const a = groupAdvantages([1, 0, 0, 1, 1, 1, 1, 1], 4);
    const s = Math.sqrt(1 / 3); // rewards 1,0,0,1: mean 0.5, Σ(r − mean)² = 1, n − 1 = 3
    expectClose(a, [0.5 / s, -0.5 / s, -0.5 / s, 0.5 / s, 0, 0, 0, 0], { rtol: 1e-6 });
    expectClose(groupAdvantages([1, 0, 0, 0], 4), [0.75 / 0.5, -0.25 / 0.5, -0.25 / 0.5, -0.25 / 0.5], { rtol: 1e-6 });
    expect(() => groupAdvantages([1, 0, 1], 2)).toThrow(/do not split into groups of 2/);
  });

  it('clips the ratio: −min(ρA, clip(ρ, 0.8, 1.2)A), no gradient once clipped', () => {
    const logp = tf.tensor1d([Math.log(1.5), Math.log(0.5), Math.log(1.5), Math.log(0.5), Math.log(1.1)]);
    const old = tf.zeros([5]);
    const adv = tf.tensor1d([1, 1, -1, -1, 2]);
    expectClose(ppoClipLoss(logp, old, adv, 0.2), [-1.2, -0.5, 1.5, 0.8, -2.2], { rtol: 1e-6 });
    const g = tf.grad((l: tf.Tensor) => tf.sum(ppoClipLoss(l, old, adv, 0.2)) as tf.Scalar)(logp);
    // d/dlogp of −ρA = −ρA where the unclipped branch is taken; 0 where the clip binds (A > 0, ρ > 1.2; A < 0, ρ < 0.8).
    expectClose(g, [0, -0.5, 1.5, 0, -2.2], { rtol: 1e-5, atol: 1e-7 });
    tf.dispose([logp, old, adv, g]);
  });

  it('PPO-clip gradients match central differences away from the kinks', () => {
    const old = tf.tensor1d([0.1, -0.3, 0.2, 0, -0.5, 0.4]);
    const adv = tf.tensor1d([1.3, -0.7, 0.5, -2, 1, -1]);
    const x0 = [0.05, -0.2, 0.5, -0.4, -0.45, 0.3]; // ratios ≈ 0.95, 1.1, 1.35 (clipped), 0.67 (clipped), 1.05, 0.9
    const f = (l: tf.Tensor) => tf.sum(ppoClipLoss(l, old, adv, 0.2)) as tf.Scalar;
    const x = tf.tensor1d(x0);
    const g = tf.grad(f)(x).dataSync();
    const eps = 1e-3;
    x0.forEach((_, i) => {
      const at = (d: number) => tf.tidy(() => f(tf.tensor1d(x0.map((v, j) => (j === i ? v + d : v)))).dataSync()[0]);
      const numeric = (at(eps) - at(-eps)) / (2 * eps);
      expect(Math.abs(numeric - g[i]), `entry ${i}: analytic ${g[i]}, numeric ${numeric}`).toBeLessThan(
        2e-3 + 2e-2 * Math.abs(g[i]),
      );
    });
    tf.dispose([old, adv, x]);
  });

  it('per-token averaging weighs each position 1/L of its sequence; without it the sum grows with length', () => {
    const lat = tf.tensor2d([
      [1, 1, 1, 1],
      [1, 0, 0, 0],
    ]);
    const latMask = tf.tensor2d([
      [1, 1, 1, 1],
      [1, 0, 0, 0],
    ]);
    const txt = tf.tensor2d([
      [2, 2],
      [2, 2],
    ]);
    const txtMask = tf.tensor2d([
      [1, 1],
      [1, 0],
    ]);
    expectClose(sequenceLosses(lat, latMask, txt, txtMask, 'mean'), [3, 3]);
    expectClose(sequenceLosses(lat, latMask, txt, txtMask, 32), [8 / 32, 3 / 32]);
    tf.dispose([lat, latMask, txt, txtMask]);
  });
});

async function bufferFor(
  state: ReturnType<typeof toyState>['state'],
  rewards: number[],
  G: number,
  prompts: number[][],
  speed: number,
  seed: number,
): Promise<BufferedRollout[]> {
  const rows = await rollout(state, prompts, {
    speed,
    decoding: 'sample',
    temperature: 1,
    topP: 1,
    maxNewTokens: 4,
    rng: new Rng(seed),
  });
  const adv = groupAdvantages(rewards, G);
  const lp = policyLogProbs(state, rows);
  const [lat, txt] = [lp.latent.arraySync(), lp.text.arraySync()];
  tf.dispose(Object.values(lp));
  return rows.map((row, i) => ({
    row,
    advantage: adv[i],
    oldLatent: lat[i].slice(0, row.latents.length),
    oldText: txt[i].slice(0, 1 + row.answer.length),
  }));
}

function seqLogProb(state: ReturnType<typeof toyState>['state'], items: BufferedRollout[]): number[] {
  return tf.tidy(() => {
    const lp = policyLogProbs(
      state,
      items.map((it) => it.row),
    );
    const total = tf.add(tf.sum(tf.mul(lp.latent, lp.latentMask), -1), tf.sum(tf.mul(lp.text, lp.textMask), -1));
    return Array.from(total.dataSync());
  });
}

describe('GRPO on a tiny model', () => {
  it('old log-probs from the teacher-forced pass reproduce themselves: ρ = 1, so the first loss is −2·mean(A)', async () => {
    const { state, data, tokenizer } = toyState({ maxLatents: 4 });
    const prompts = [0, 0, 0, 0].map(() => promptIds(tokenizer, data[0], 5, state.config.speedPrompt));
    const items = await bufferFor(state, [1, 0, 0, 0], 4, prompts, 5, 1);
    const l = tf.tidy(() => grpoLoss(state, items.slice(0, 3)).dataSync()[0]);
    const meanA = (items[0].advantage + items[1].advantage + items[2].advantage) / 3;
    expect(l).toBeCloseTo(-2 * meanA, 4);
    state.dispose();
  });

  it('an RL step raises the probability of rewarded samples and lowers that of the others', async () => {
    const { state, data, tokenizer } = toyState({ maxLatents: 4, clipEpsilon: 0.2 });
    const G = 4;
    const prompts = [0, 0, 0, 0, 1, 1, 1, 1].map((q) => promptIds(tokenizer, data[q], 3, state.config.speedPrompt));
    const rewards = [1, 0, 1, 0, 0, 0, 1, 0];
    const items = await bufferFor(state, rewards, G, prompts, 3, 2);
    const before = seqLogProb(state, items);
    await train({
      params: state.trainable('rl'),
      rng: new Rng(0),
      config: {
        steps: 4,
        logEvery: 100,
        optim: { ...TOY_OPTIM, lr: 3e-3 },
      },
      loss: () => grpoLoss(state, items),
    });
    const after = seqLogProb(state, items);
    const delta = after.map((a, i) => a - before[i]);
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    const up = mean(delta.filter((_, i) => rewards[i] === 1));
    const down = mean(delta.filter((_, i) => rewards[i] === 0));
    expect(up).toBeGreaterThan(0);
    expect(down).toBeLessThan(0);
    state.dispose();
  });

  it('prepareRl fills the buffer with G rollouts per question through the reward, rlLoss trains on minibatches, and nothing leaks', async () => {
    const { state, data } = toyState({
      maxLatents: 3,
      groupSize: 2,
      rolloutQuestions: 2,
      rlMinibatch: 3,
      maxNewTokens: 3,
    });
    const seen: string[] = [];
    state.reward = (ex, answer) => {
      seen.push(ex.id);
      return answer.length % 2;
    };
    await expectNoLeak(async () => {
      await prepareRl(state, data.slice(0, 5), new Rng(0));
      tf.tidy(() => {
        rlLoss(state);
      });
    });
    expect(seen).toEqual([data[0].id, data[0].id, data[1].id, data[1].id]);
    expect(state.buffer).toHaveLength(1);
    expect(state.rlStats.rollouts).toBe(4);
    await prepareRl(state, data, new Rng(1)); // the buffer is not empty: no new rollouts
    expect(state.rlStats.rollouts).toBe(4);
    const { value, grads } = tf.variableGrads(() => rlLoss(state), [...state.trainable('rl').values()]);
    expect(Number.isFinite(value.dataSync()[0])).toBe(true);
    expect(state.buffer).toHaveLength(0);
    tf.dispose([value, ...Object.values(grads)]);
    delete state.reward;
    expect(() => rlLoss(state)).toThrow(/empty rollout buffer/);
    await expect(refillBuffer(state, data.slice(0, 1), new Rng(0))).rejects.toThrow(/needs a reward/);
    state.dispose();
  });

  it('counts the GRPO groups whose advantages are not all zero', async () => {
    expect(groupsWithSignal([1, 1, 0, 0, 0, 1, 1, 1, 1], 3)).toBe(2);
    expect(groupsWithSignal([0, 0, 0, 0], 2)).toBe(0);
    const { state, data } = toyState({ maxLatents: 2, groupSize: 4, rolloutQuestions: 3, maxNewTokens: 2 });
    let calls = 0;
    // Question 0 always right, question 1 right every other rollout, question 2 never: one group with signal.
    state.reward = (ex) => (ex.id === data[0].id ? 1 : ex.id === data[1].id ? calls++ % 2 : 0);
    await refillBuffer(state, data.slice(0, 3), new Rng(0));
    expect(state.rlStats).toMatchObject({ rollouts: 12, groups: 3, groupsWithSignal: 1 });
    state.buffer.length = 0;
    await refillBuffer(state, data.slice(0, 3), new Rng(1));
    expect(state.rlStats).toMatchObject({ rollouts: 24, groups: 6, groupsWithSignal: 2 });
    state.dispose();
  });
});
