/**
 * Test fixtures for CoLaR: a toy addition task with one reasoning step, its tokenizer, a tiny
 * LM and a ready state. Import from '@telepath/colar/testing' in tests only.
 */
import {
  DEFAULT_OPTIM_CONFIG,
  exampleTexts,
  Rng,
  TinyLm,
  Tokenizer,
  type Example,
  type LmConfig,
  type RewardFn,
} from '@telepath/core';
import { toyAdditionExamples } from '@telepath/core/testing';
import type { ColarConfig } from './config.js';
import { colar } from './method.js';
import type { ColarState } from './state.js';

/** The toy addition task shared by every method's tests (core/testing). */
export const toyExamples = toyAdditionExamples;

/** The exact-match reward the lab would build from a task. */
export const toyReward: RewardFn = (ex, answer) => (answer.trim() === ex.answer ? 1 : 0);

export const TOY_LM: Omit<LmConfig, 'vocabSize'> = {
  contextLength: 48,
  positions: 'learned',
  layers: 2,
  heads: 2,
  width: 16,
  mlpRatio: 2,
  dropout: 0,
  layerNormEps: 1e-5,
  initStd: 0.02,
};

/** Adam at a constant 1e-2 with no warm-up: what the package's training tests start from (spread and override). */
export const TOY_OPTIM = { ...DEFAULT_OPTIM_CONFIG, lr: 1e-2, lrMinRatio: 1, warmupSteps: 0, weightDecay: 0 };

/** A CoLaR state on a fresh tiny LM over the toy task's vocabulary. */
export function toyState(
  config: Partial<ColarConfig> = {},
  seed = 0,
  lm: Partial<LmConfig> = {},
): { state: ColarState; data: Example[]; tokenizer: Tokenizer } {
  const data = toyExamples(64);
  const tokenizer = Tokenizer.build([...exampleTexts(data), 'Thinking speed: 0']);
  const model = new TinyLm({ ...TOY_LM, vocabSize: tokenizer.size, ...lm }, new Rng(seed));
  const state = colar.init(
    { lm: model, tokenizer, rng: new Rng(seed), backend: 'cpu', reward: toyReward },
    { ...colar.defaults, ...config },
  );
  return { state, data, tokenizer };
}
