/**
 * Test helpers for @telepath/thought-comm: a tiny autoencoder on a tiny synthetic world, small
 * enough for finite-difference checks on the cpu backend, and tiny agents. Import in tests only.
 */
import { exampleTexts, parseConfig, Rng, TinyLm, Tokenizer, type Example } from '@telepath/core';
import type { Agent } from './agents.js';
import {
  DEFAULT_AUTOENCODER_CONFIG,
  DEFAULT_SYNTHETIC_CONFIG,
  type AutoencoderConfig,
  type SyntheticConfig,
} from './config.js';
import { createAutoencoder, type Autoencoder } from './autoencoder.js';
import { agentRanges } from './synthetic.js';

/** 3 agents, 1 latent shared by all, 1 per pair, 1 private each: Z = 7, n_h = 42. */
export const TINY_SYNTHETIC_CONFIG: SyntheticConfig = parseConfig(DEFAULT_SYNTHETIC_CONFIG, {
  stateDim: 42,
  sharedByAll: 1,
  sharedByPair: 1,
  privatePerAgent: 1,
});

/** An autoencoder with unit state statistics and random weights; H = 6, Z = 3 by default. */
export function tinyAutoencoder(o: Partial<AutoencoderConfig> = {}, H = 6, Z = 3, seed = 0): Autoencoder {
  const cfg = parseConfig(DEFAULT_AUTOENCODER_CONFIG, {
    encoderHidden: [5],
    decoderHidden: [5, 4],
    activation: 'tanh',
    ...o,
  });
  return createAutoencoder(cfg, H, Z, { mean: new Float32Array(H), std: new Float32Array(H).fill(1) }, new Rng(seed));
}

/** Agent ranges of the tiny autoencoder's H rows, split between 2 agents. */
export function tinyRanges(H = 6, agents = 2): [number, number][] {
  return agentRanges(H, agents);
}

/** n untrained No-CoT agents (2 layers, width 8) sharing a tokenizer built from `examples`, each from its own seed. */
export function tinyAgents(n: number, examples: Example[], width = 8): Agent[] {
  const tokenizer = Tokenizer.build(exampleTexts(examples));
  return Array.from({ length: n }, (_, k) => ({
    lm: new TinyLm(
      {
        vocabSize: tokenizer.size,
        contextLength: 32,
        layers: 2,
        heads: 2,
        width,
        mlpRatio: 2,
        dropout: 0,
        layerNormEps: 1e-5,
        initStd: 0.2,
      },
      new Rng(100 + k),
      `tiny-agent${k}`,
    ),
    tokenizer,
    variant: 'no-cot' as const,
  }));
}

/** The smallest agents experiment that runs end to end in seconds on cpu: the base of the tests' configs. */
export const TINY_AGENTS_EXPERIMENT = {
  name: 'tiny-agents',
  lm: { layers: 2, heads: 2, width: 8 },
  agentTraining: { steps: 4, batchSize: 4, logEvery: 2, checkpointEvery: 2 },
  commExamples: 12,
  autoencoder: {
    latentDim: 4,
    encoderHidden: [8],
    decoderHidden: [8],
    steps: 10,
    batch: 8,
    penaltyDelay: 2,
    penaltyRamp: 2,
    warmupSteps: 1,
  },
  readout: { samples: 8 },
  adapter: { hidden: 4, steps: 2, batchSize: 4, warmupSteps: 0, continuationTokens: 3 },
  eval: { batchSize: 4, maxNewTokens: 4 },
};
