/**
 * Golden tests (house rule 9c): fixedInitLm + each variant's trainable state, trained for 5
 * steps on cpu with fixed batches and seeded Rngs (soft-token init, Coconut's uniform stage
 * mixing), must reproduce src/__fixtures__/<variant>-golden.json within 1e-4. Continuous
 * thought runs its curriculum as the lab does (one train() per stage: 2 + 2 + 1 steps, each at
 * the stage's constant learning rate).
 * Regenerate after an intended change: cd packages/soft-embedding && TELEPATH_UPDATE_GOLDEN=1 npx vitest run golden
 */
import { fileURLToPath } from 'node:url';
import { exampleTexts, initBackend, Rng, Tokenizer, train } from '@telepath/core';
import { expectGolden, fixedInitLm, GOLDEN_TRAIN, goldenBatch, tinyLmConfig } from '@telepath/core/testing';
import { beforeAll, describe, expect, it } from 'vitest';
import type { SoftEmbeddingConfig } from './config.js';
import { softEmbedding } from './method.js';
import { toyExamples } from './testing.js';

beforeAll(async () => {
  await initBackend('cpu', { quiet: true });
});

const CONFIGS: Record<SoftEmbeddingConfig['variant'], Partial<SoftEmbeddingConfig>> = {
  'soft-tokens': { latentTokens: 2, steps: 5 },
  'continuous-thought': {
    latentTokens: 2,
    thoughtsPerStep: 1,
    firstStage: 1,
    stepsPerStage: 2,
    finalStageSteps: 1,
    uniformProb: 0.5,
  },
};

describe('soft-embedding golden', () => {
  it.each(['soft-tokens', 'continuous-thought'] as const)(
    '%s: 5 steps from fixedInitLm reproduce the fixture',
    async (variant) => {
      const t0 = performance.now();
      const data = toyExamples(64);
      const tokenizer = Tokenizer.build(exampleTexts(data));
      const lm = fixedInitLm({ ...tinyLmConfig, vocabSize: tokenizer.size, contextLength: 48 });
      const state = softEmbedding.init(
        { lm, tokenizer, rng: new Rng(5), backend: 'cpu' },
        { ...softEmbedding.defaults, variant, ...CONFIGS[variant] },
      );
      const losses: number[] = [];
      let done = 0;
      for (const { phase, steps, optim } of softEmbedding.phases(state.config)) {
        const res = await train({
          params: state.trainable(phase),
          rng: new Rng(7).fork(phase),
          config: { ...GOLDEN_TRAIN, steps, optim: { ...GOLDEN_TRAIN.optim, ...optim } }, // the phase's optimizer settings over the run's, as the lab merges them
          loss: (at) =>
            softEmbedding.loss(state, goldenBatch(data, done + at.step), { step: at.step, phase, rng: at.rng }),
        });
        losses.push(...res.losses);
        done += steps;
      }
      state.dispose();
      expect(losses).toHaveLength(5);
      expect(performance.now() - t0, 'a golden test must take < 5 s').toBeLessThan(5000);
      await expectGolden(fileURLToPath(new URL(`./__fixtures__/${variant}-golden.json`, import.meta.url)), losses);
    },
  );
});
