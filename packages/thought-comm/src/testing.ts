/**
 * Test helpers for @telepath/thought-comm: a tiny autoencoder on a tiny synthetic world, small
 * enough for finite-difference checks on the cpu backend. Import in tests only.
 */
import { parseConfig, Rng } from '@telepath/core';
import { DEFAULT_AUTOENCODER_CONFIG, DEFAULT_SYNTHETIC_CONFIG, type AutoencoderConfig, type SyntheticConfig } from './config.js';
import { createAutoencoder, type Autoencoder } from './model.js';
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
  const cfg = parseConfig(DEFAULT_AUTOENCODER_CONFIG, { encoderHidden: [5], decoderHidden: [5, 4], activation: 'tanh', ...o });
  return createAutoencoder(cfg, H, Z, { mean: new Float32Array(H), std: new Float32Array(H).fill(1) }, new Rng(seed));
}

/** Agent ranges of the tiny autoencoder's H rows, split between 2 agents. */
export function tinyRanges(H = 6, agents = 2): [number, number][] {
  return agentRanges(H, agents);
}
