import * as tf from '@tensorflow/tfjs-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { initBackend, parseConfig, Rng } from '@telepath/core';
import { expectNoLeak } from '@telepath/core/testing';
import { DEFAULT_AUTOENCODER_CONFIG } from './config.js';
import { encodeAll } from './evaluate.js';
import { fitAutoencoder } from './fit.js';
import { codeCorrelation, lambdaAt } from './loss.js';
import { columnStats } from './autoencoder.js';
import { makeWorld, sampleWorld } from './synthetic.js';
import { TINY_SYNTHETIC_CONFIG } from './testing.js';

beforeAll(async () => {
  await initBackend('cpu', { quiet: true });
});

describe('lambdaAt', () => {
  it('is 0 during the delay, then ramps linearly to λ', () => {
    const c = { lambda: 0.2, penaltyDelay: 10, penaltyRamp: 4 };
    const want = [0, 0.05, 0.1, 0.15, 0.2, 0.2];
    [9, 10, 11, 12, 13, 50].forEach((s, i) => expect(lambdaAt(c, s)).toBeCloseTo(want[i], 12));
    expect(lambdaAt({ ...c, penaltyRamp: 0 }, 10)).toBe(0.2);
  });
});

describe('codeCorrelation', () => {
  it('is the mean squared off-diagonal correlation of standardised codes', () => {
    // columns: a, a (duplicate), b ⟂ a — correlations 1 (once, counted twice) and 0 elsewhere
    const a = [1, -1, 1, -1];
    const b = [1, 1, -1, -1];
    const z = tf.tensor2d(a.map((x, i) => [x, x, b[i]]));
    expect(codeCorrelation(z).dataSync()[0]).toBeCloseTo(2 / 6, 6);
    z.dispose();
  });
});

describe('fitAutoencoder (smoke)', () => {
  it('after a few steps the loss is finite, every parameter changed, codes are standardised, nothing leaks', async () => {
    const world = makeWorld(TINY_SYNTHETIC_CONFIG, new Rng(0));
    const data = sampleWorld(world, 200, new Rng(1));
    const config = parseConfig(DEFAULT_AUTOENCODER_CONFIG, {
      encoderHidden: [8],
      decoderHidden: [8],
      steps: 4,
      batch: 16,
      jacobianSamples: 4,
      penaltyDelay: 0,
      penaltyRamp: 0,
      warmupSteps: 0,
      jacobianColumns: 3,
    });
    const rng = new Rng(2);
    const opts = {
      h: data.h,
      n: data.n,
      stateDim: world.stateDim,
      latentDim: world.latentDim,
      agentRanges: world.agentRanges,
      config,
      rng,
    };
    // the initial weights, from an identically seeded autoencoder trained for 0 steps
    const init = await fitAutoencoder({ ...opts, config: { ...config, steps: 0 } });
    const before = new Map([...init.ae.params].map(([k, v]) => [k, v.dataSync().slice()]));
    init.ae.dispose();
    // allowed: the returned autoencoder's variables (4 layers × w, b, plus 4 statistics)
    const fit = await expectNoLeak(() => fitAutoencoder(opts), {
      allowed: 4 + 2 * (config.encoderHidden.length + config.decoderHidden.length + 2),
    });
    expect(fit.losses).toHaveLength(4);
    fit.losses.forEach((l) => expect(Number.isFinite(l)).toBe(true));
    expect(fit.final.penalty).toBeGreaterThan(0);
    for (const [k, v] of fit.ae.params) {
      const a = v.dataSync();
      const b = before.get(k)!;
      expect(
        a.some((x, i) => x !== b[i]),
        `${k} changed`,
      ).toBe(true);
    }
    const z = await encodeAll(fit.ae, data.h, data.n);
    const { mean, std } = columnStats(z, data.n, world.latentDim);
    mean.forEach((m) => expect(Math.abs(m)).toBeLessThan(1e-3));
    std.forEach((s) => expect(s).toBeCloseTo(1, 3));
    fit.ae.dispose();
  });
});
