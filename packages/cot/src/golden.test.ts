/**
 * Golden tests (house rule 9c): fixedInitLm + each variant trained for 5 steps on cpu with fixed
 * batches must reproduce src/__fixtures__/<variant>-golden.json within 1e-4.
 * Regenerate after an intended change: cd packages/cot && TELEPATH_UPDATE_GOLDEN=1 npx vitest run golden
 */
import { fileURLToPath } from 'node:url';
import { exampleTexts, initBackend, Rng, Tokenizer, train } from '@telepath/core';
import {
  expectGolden,
  fixedInitLm,
  GOLDEN_TRAIN,
  goldenBatch,
  tinyLmConfig,
  toyAdditionExamples,
} from '@telepath/core/testing';
import { beforeAll, describe, expect, it } from 'vitest';
import { cot } from './method.js';

beforeAll(async () => {
  await initBackend('cpu', { quiet: true });
});

describe('cot golden', () => {
  it.each(['cot', 'no-cot'] as const)('%s: 5 steps from fixedInitLm reproduce the fixture', async (variant) => {
    const t0 = performance.now();
    const data = toyAdditionExamples(64);
    const tokenizer = Tokenizer.build(exampleTexts(data));
    const lm = fixedInitLm({ ...tinyLmConfig, vocabSize: tokenizer.size, contextLength: 24 });
    const state = cot.init(
      { lm, tokenizer, rng: new Rng(5), backend: 'cpu' },
      { ...cot.defaults, variant, steps: GOLDEN_TRAIN.steps },
    );
    const res = await train({
      params: state.trainable('sft'),
      rng: new Rng(7),
      config: GOLDEN_TRAIN,
      loss: (at) => cot.loss(state, goldenBatch(data, at.step), { step: at.step, phase: 'sft', rng: at.rng }),
    });
    state.dispose();
    expect(performance.now() - t0, 'a golden test must take < 5 s').toBeLessThan(5000);
    await expectGolden(fileURLToPath(new URL(`./__fixtures__/${variant}-golden.json`, import.meta.url)), res.losses);
  });
});
