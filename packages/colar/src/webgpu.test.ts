/**
 * CoLaR on the `webgpu` backend against cpu (the oracle), within 1e-4 and with no leaked tensor:
 * GRPO steps (rollouts, rewards and old log-probs made by `prepare` with asynchronous reads, then
 * the clipped loss) and the latent trace the analysis reads. On a machine without a GPU they run
 * on lavapipe (scripts/setup-lavapipe.sh); without a driver Dawn accepts they say why and skip.
 */
import { Rng, train, type RewardFn } from '@telepath/core';
import { expectClose, onCpuAndWebgpu, webgpuSkipReason } from '@telepath/core/testing';
import { beforeAll, describe, expect, it } from 'vitest';
import { colar } from './method.js';
import { TOY_OPTIM, toyState } from './testing.js';

const TOL = { rtol: 1e-4, atol: 1e-4 };
/** Answer-length parity: an untrained model never answers right, and all-zero rewards give a constant loss of 0. */
const parity: RewardFn = (_ex, answer) => answer.length % 2;
let skipReason: string | null = null;

beforeAll(async () => {
  skipReason = await webgpuSkipReason('colar webgpu tests');
});

describe('colar on webgpu (against cpu)', () => {
  it('2 GRPO steps (2 questions × G 4 sampled rollouts, minibatches of 3) give the cpu losses, rewards and weights', async (ctx) => {
    if (skipReason) return ctx.skip();
    const { cpu, gpu } = await onCpuAndWebgpu(async () => {
      const { state, data } = toyState({
        rlSteps: 2,
        groupSize: 4,
        rolloutQuestions: 2,
        rlMinibatch: 3,
        maxLatents: 3,
        maxNewTokens: 3,
      });
      state.reward = parity;
      const at = (step: number, rng: Rng) => ({ step, phase: 'rl', rng });
      const res = await train({
        params: state.trainable('rl'),
        rng: new Rng(4),
        config: { steps: 2, logEvery: 100, optim: TOY_OPTIM },
        prepare: (s) => colar.prepare!(state, data.slice(0, 8), at(s.step, s.rng)),
        loss: (s) => colar.loss(state, data.slice(0, 8), at(s.step, s.rng)),
      });
      const head = Array.from(await state.params().get('colar.head.w1')!.data());
      const out = { losses: res.losses, stats: { ...state.rlStats }, head };
      state.dispose();
      return out;
    });
    expect(gpu.stats.rollouts).toBe(8); // one buffer of 8 at step 0, minibatches of 3
    expect(gpu.stats).toEqual(cpu.stats);
    expect(cpu.losses.some((l) => Math.abs(l) > 1e-3)).toBe(true); // the comparison is not of zeros
    expectClose(gpu.losses, cpu.losses, TOL);
    expectClose(gpu.head, cpu.head, TOL);
  });

  it("greedy answers and the latent trace equal cpu's", async (ctx) => {
    if (skipReason) return ctx.skip();
    const { cpu, gpu } = await onCpuAndWebgpu(async () => {
      const { state, data } = toyState({ maxLatents: 4, decoding: 'greedy' });
      const gens = await colar.generate(state, data.slice(0, 4), {
        maxNewTokens: 4,
        temperature: 0,
        topP: 1,
        rng: new Rng(0),
      });
      const trace = await colar.trace!(state, data.slice(0, 4));
      state.dispose();
      return {
        text: gens.map((g) => g.text),
        slots: trace.slots.map((s) => ({ rows: s.rows, vectors: Array.from(s.vectors) })),
      };
    });
    expect(gpu.text).toEqual(cpu.text);
    expect(gpu.slots.map((s) => s.rows)).toEqual(cpu.slots.map((s) => s.rows));
    gpu.slots.forEach((s, k) => expectClose(s.vectors, cpu.slots[k].vectors, TOL));
  });
});
