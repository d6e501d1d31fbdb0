/**
 * Golden tests (house rule 9c): fixedInitLm + CoLaR's latent head (from a seeded Rng), trained
 * for 5 steps on cpu with fixed batches, must reproduce src/__fixtures__/colar-<phase>-golden.json
 * within 1e-4:
 *   sft: compressed chains at a seeded random speed per step (the head samples latents too);
 *   rl:  GRPO from the same start — seeded rollouts of 2 questions × G 4, minibatches of 3 (not a
 *        whole group, so a fresh minibatch's mean advantage and loss are not 0), at a learning
 *        rate large enough (1e-2, not the paper's 1e-6) for 5 steps to move the loss.
 * The RL reward is answer-length parity: an untrained model never answers right, and all-zero
 * rewards would give zero advantages and a constant loss of 0.
 * Regenerate after an intended change: cd packages/colar && TELEPATH_UPDATE_GOLDEN=1 npx vitest run golden
 */
import { fileURLToPath } from 'node:url';
import { exampleTexts, initBackend, Rng, Tokenizer, train, type RewardFn } from '@telepath/core';
import { expectGolden, fixedInitLm, GOLDEN_TRAIN, goldenBatch, tinyLmConfig } from '@telepath/core/testing';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ColarConfig } from './config.js';
import { colar } from './method.js';
import { toyExamples } from './testing.js';

beforeAll(async () => {
  await initBackend('cpu', { quiet: true });
});

const parity: RewardFn = (_ex, answer) => answer.length % 2;

const CONFIGS: Record<'sft' | 'rl', Partial<ColarConfig>> = {
  sft: { sftSteps: 5 },
  rl: {
    sftSteps: 0,
    rlSteps: 5,
    rlLr: 1e-2,
    groupSize: 4,
    rolloutQuestions: 2,
    rlMinibatch: 3,
    maxLatents: 3,
    maxNewTokens: 3,
  },
};

describe('colar golden', () => {
  it.each(['sft', 'rl'] as const)('%s: 5 steps from fixedInitLm reproduce the fixture', async (phase) => {
    const t0 = performance.now();
    const data = toyExamples(64);
    const tokenizer = Tokenizer.build([...exampleTexts(data), 'Thinking speed: 0']);
    const lm = fixedInitLm({ ...tinyLmConfig, vocabSize: tokenizer.size, contextLength: 48 });
    const state = colar.init(
      { lm, tokenizer, rng: new Rng(5), backend: 'cpu', reward: parity },
      { ...colar.defaults, ...CONFIGS[phase] },
    );
    const p = colar.phases(state.config).find((x) => x.phase === phase)!;
    expect(p.steps).toBe(5);
    const res = await train({
      params: state.trainable(phase),
      rng: new Rng(7).fork(phase),
      config: { ...GOLDEN_TRAIN, steps: p.steps, optim: { ...GOLDEN_TRAIN.optim, ...p.optim } },
      loss: (at) => colar.loss(state, goldenBatch(data, at.step), { step: at.step, phase, rng: at.rng }),
      prepare: (at) => colar.prepare!(state, goldenBatch(data, at.step), { step: at.step, phase, rng: at.rng }),
    });
    state.dispose();
    expect(performance.now() - t0, 'a golden test must take < 5 s').toBeLessThan(5000);
    await expectGolden(
      fileURLToPath(new URL(`./__fixtures__/colar-${phase}-golden.json`, import.meta.url)),
      res.losses,
    );
  });
});
