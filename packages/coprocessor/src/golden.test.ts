/**
 * Golden tests (house rule 9c): a fixedInitLm Base, its Coprocessor (weights copied, soft tokens
 * from a seeded Rng) and each variant's phases as the lab runs them, 5 steps in all on cpu with
 * fixed batches, must reproduce src/__fixtures__/coprocessor-<variant>-golden.json within 1e-4.
 *   liu: 2 pretrain steps (Liu's ahead tokens, seeded insertion points) + 3 sft steps
 *   h1:  5 sft steps        h2: 2 warm steps (Base frozen) + 3 joint sft steps
 * Regenerate after an intended change: cd packages/coprocessor && TELEPATH_UPDATE_GOLDEN=1 npx vitest run golden
 */
import { fileURLToPath } from 'node:url';
import { exampleTexts, initBackend, Rng, Tokenizer, train } from '@telepath/core';
import { expectGolden, fixedInitLm, GOLDEN_TRAIN, goldenBatch, tinyLmConfig } from '@telepath/core/testing';
import { beforeAll, describe, expect, it } from 'vitest';
import type { CoprocessorConfig, CoprocessorVariant } from './config.js';
import { coprocessor } from './method.js';
import { toyExamples } from './testing.js';

beforeAll(async () => {
  await initBackend('cpu', { quiet: true });
});

const CONFIGS: Partial<Record<CoprocessorVariant, Partial<CoprocessorConfig>>> = {
  liu: { pretrainSteps: 2, aheadTokens: 4, steps: 3 },
  h1: { steps: 5 },
  h2: { frozenBaseSteps: 2, steps: 3 },
};

describe('coprocessor golden', () => {
  it.each(['liu', 'h1', 'h2'] as const)('%s: 5 steps from fixedInitLm reproduce the fixture', async (variant) => {
    const t0 = performance.now();
    const data = toyExamples(64);
    const tokenizer = Tokenizer.build(exampleTexts(data));
    const lm = fixedInitLm({ ...tinyLmConfig, vocabSize: tokenizer.size, contextLength: 40 });
    const state = coprocessor.init(
      { lm, tokenizer, rng: new Rng(5), backend: 'cpu' },
      { ...coprocessor.defaults, variant, latentTokens: 2, ...CONFIGS[variant] },
    );
    const losses: number[] = [];
    let done = 0;
    for (const { phase, steps, optim } of coprocessor.phases(state.config)) {
      const res = await train({
        params: state.trainable(phase),
        rng: new Rng(7).fork(phase),
        config: { ...GOLDEN_TRAIN, steps, optim: { ...GOLDEN_TRAIN.optim, ...optim } },
        loss: (at) => coprocessor.loss(state, goldenBatch(data, done + at.step), { step: at.step, phase, rng: at.rng }),
      });
      losses.push(...res.losses);
      done += steps;
    }
    state.dispose();
    expect(losses).toHaveLength(5);
    expect(performance.now() - t0, 'a golden test must take < 5 s').toBeLessThan(5000);
    await expectGolden(
      fileURLToPath(new URL(`./__fixtures__/coprocessor-${variant}-golden.json`, import.meta.url)),
      losses,
    );
  });
});
