import { describe, expect, it } from 'vitest';
import { DEFAULT_SOFT_EMBEDDING_CONFIG, maxLatentStage, resolveConfig } from './config.js';

describe('soft-embedding config', () => {
  it('resolves the defaults and derives the number of latent stages from N_L and c', () => {
    const c = resolveConfig({});
    expect(c).toEqual(DEFAULT_SOFT_EMBEDDING_CONFIG);
    expect(maxLatentStage(resolveConfig({ variant: 'continuous-thought', latentTokens: 6, thoughtsPerStep: 2 }))).toBe(
      3,
    );
  });

  it('rejects unknown variants and keys, wrong types and inconsistent budgets, naming the choices', () => {
    expect(() => resolveConfig({ variant: 'pause' })).toThrow(
      'soft-embedding: unknown variant "pause". Expected one of: soft-tokens, continuous-thought',
    );
    expect(() => resolveConfig({ latentToken: 4 })).toThrow(/unknown config key "latentToken"/);
    expect(() => resolveConfig({ latentTokens: '4' })).toThrow(/expected number/);
    expect(() => resolveConfig({ latentTokens: 0 })).toThrow(/latentTokens must be an integer ≥ 1/);
    expect(() => resolveConfig({ variant: 'continuous-thought', latentTokens: 5, thoughtsPerStep: 2 })).toThrow(
      /multiple of thoughtsPerStep/,
    );
    expect(() => resolveConfig({ variant: 'continuous-thought', latentTokens: 2, firstStage: 4 })).toThrow(
      /past the final stage 3/,
    );
    expect(() => resolveConfig({ variant: 'continuous-thought', uniformProb: 1.5 })).toThrow(/uniformProb/);
    // soft tokens ignore the curriculum keys
    expect(resolveConfig({ variant: 'soft-tokens', latentTokens: 5, thoughtsPerStep: 2 }).latentTokens).toBe(5);
  });
});
