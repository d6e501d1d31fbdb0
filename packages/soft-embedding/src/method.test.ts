import * as tf from '@tensorflow/tfjs-core';
import { DEFAULT_OPTIM_CONFIG, initBackend, Rng, train } from '@telepath/core';
import { expectNoLeak } from '@telepath/core/testing';
import { beforeAll, describe, expect, it } from 'vitest';
import { softEmbedding } from './method.js';
import { SOFT_TOKENS_PARAM } from './state.js';
import { toyState } from './testing.js';

beforeAll(async () => {
  await initBackend('cpu', { quiet: true });
});

const optim = { ...DEFAULT_OPTIM_CONFIG, lr: 1e-2, warmupSteps: 2, weightDecay: 0 };

describe('soft-embedding method', () => {
  it('phases: soft tokens one sft phase; continuous thought one phase per curriculum stage', () => {
    expect(softEmbedding.phases({ ...softEmbedding.defaults, steps: 7 })).toEqual([{ phase: 'sft', steps: 7 }]);
    const ct = {
      ...softEmbedding.defaults,
      variant: 'continuous-thought' as const,
      latentTokens: 4,
      thoughtsPerStep: 2,
      stepsPerStage: 5,
      finalStageSteps: 9,
    };
    expect(softEmbedding.phases(ct).map(({ phase, steps }) => ({ phase, steps }))).toEqual([
      { phase: 'stage1', steps: 5 },
      { phase: 'stage2', steps: 5 },
      { phase: 'stage3', steps: 9 },
    ]);
  });

  it('continuous thought: a fresh optimizer per stage at a constant learning rate (no per-stage warmup or decay)', async () => {
    const { data, state } = toyState({
      variant: 'continuous-thought',
      latentTokens: 2,
      thoughtsPerStep: 1,
      stepsPerStage: 3,
      finalStageSteps: 3,
    });
    for (const { phase, steps, optim: stageOptim } of softEmbedding.phases(state.config)) {
      const lrs: number[] = [];
      // The lab's merge: the phase's optimizer settings over the experiment's (warmup 2, cosine to 0.1).
      await train({
        params: state.trainable(phase),
        rng: new Rng(3),
        config: { steps, logEvery: 1, optim: { ...optim, ...stageOptim } },
        loss: (at) => softEmbedding.loss(state, data.slice(0, 4), { step: at.step, phase, rng: at.rng }),
        onLog: (l) => lrs.push(l.lr),
      });
      expect(lrs, phase).toEqual(new Array(steps).fill(optim.lr));
    }
    state.dispose();
  });

  it('soft tokens are trained with the LM and checkpointed under their own name', () => {
    const { state } = toyState({ variant: 'soft-tokens', latentTokens: 2 });
    expect(state.trainable('sft').get(SOFT_TOKENS_PARAM)).toBe(state.soft);
    expect(state.variables().size).toBe(state.lm.params.size + 1);
    expect(() => state.trainable('stage1')).toThrow(/Expected: sft/);
    state.dispose();
    const ct = toyState({ variant: 'continuous-thought' }).state;
    expect(ct.variables().size).toBe(ct.lm.params.size);
    ct.dispose();
  });

  it('loss does not leak', async () => {
    for (const variant of ['soft-tokens', 'continuous-thought'] as const) {
      const { data, state } = toyState({ variant, latentTokens: 2, uniformProb: 0.5 });
      const phase = variant === 'soft-tokens' ? 'sft' : 'stage1';
      await expectNoLeak(() =>
        tf.tidy(() => {
          softEmbedding.loss(state, data.slice(0, 4), { step: 0, phase, rng: new Rng(0) });
        }),
      );
      state.dispose();
    }
  });

  it.each(['soft-tokens', 'continuous-thought'] as const)(
    '%s: a smoke training run lowers the loss and changes every parameter',
    async (variant) => {
      const { data, state } = toyState({
        variant,
        latentTokens: 2,
        thoughtsPerStep: 1,
        steps: 15,
        stepsPerStage: 4,
        finalStageSteps: 8,
      });
      const before = new Map([...state.variables()].map(([k, v]) => [k, v.dataSync().slice()]));
      const first: number[] = [];
      const last: number[] = [];
      for (const { phase, steps, optim: stageOptim } of softEmbedding.phases(state.config)) {
        // one train() per phase, as the lab runs it: a fresh optimizer per curriculum stage
        const res = await train({
          params: state.trainable(phase),
          rng: new Rng(3).fork(phase),
          config: { steps, logEvery: 1000, optim: { ...optim, ...stageOptim } },
          loss: (at) =>
            softEmbedding.loss(state, at.rng.shuffle([...data]).slice(0, 8), { step: at.step, phase, rng: at.rng }),
        });
        first.push(res.losses[0]);
        last.push(res.losses[res.losses.length - 1]);
      }
      expect(last[last.length - 1]).toBeLessThan(first[0] * 0.7);
      expect(last.every(Number.isFinite)).toBe(true);
      for (const [k, v] of state.variables())
        expect(Array.from(v.dataSync()), k).not.toEqual(Array.from(before.get(k)!));
      state.dispose();
    },
  );
});
