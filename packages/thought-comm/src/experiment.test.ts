import { beforeAll, describe, expect, it } from 'vitest';
import { initBackend } from '@telepath/core';
import { expectNoLeak } from '@telepath/core/testing';
import { Rng } from '@telepath/core';
import {
  aggregateRuns,
  parseSyntheticExperimentConfig,
  runSyntheticCell,
  runSyntheticExperiment,
  type SyntheticRunResult,
} from './experiment.js';
import { formatTable, jsonReport } from './report.js';
import { TINY_SYNTHETIC_CONFIG } from './testing.js';

beforeAll(async () => {
  await initBackend(undefined, { quiet: true });
});

/** 3 agents, Z = 7, n_h = 42: small enough to train in a few seconds. */
const tiny = (o: object = {}) =>
  parseSyntheticExperimentConfig({
    seeds: [0],
    stateDims: [42],
    trainSamples: 1500,
    testSamples: 500,
    synthetic: TINY_SYNTHETIC_CONFIG,
    autoencoder: {
      encoderHidden: [64, 64],
      decoderHidden: [64, 64],
      steps: 700,
      batch: 64,
      penaltyDelay: 100,
      penaltyRamp: 200,
      lr: 3e-3,
      lambda: 0.2,
    },
    ...o,
  });

describe('synthetic experiment', () => {
  it('rejects unknown keys, in arms too', () => {
    expect(() => parseSyntheticExperimentConfig({ stateDim: [1] })).toThrow(/unknown config key "stateDim"/);
    expect(() => parseSyntheticExperimentConfig({ arms: [{ name: 'x', autoencoder: { lamda: 1 } }] })).toThrow(/lamda/);
    expect(() => parseSyntheticExperimentConfig({ method: 'colar' })).toThrow(/thought-comm/);
    expect(() => parseSyntheticExperimentConfig({ autoencoder: { penalty: 'l2' } })).toThrow(
      /Expected one of: l1, group, l1\+group/,
    );
    expect(() => parseSyntheticExperimentConfig({ synthetic: { design: 'blocks' } })).toThrow(
      /Expected one of: component, block/,
    );
  });

  it('a small run recovers the structure with the sparsity term and not without it', async () => {
    const c = tiny();
    const [sparse, dense] = c.arms;
    const rs = await expectNoLeak(() => runSyntheticCell(c, sparse, 42, 0));
    expect(rs.mcc).toBeGreaterThan(0.9);
    expect(rs.supportF1).toBeGreaterThan(0.9);
    expect(rs.blockSupportF1).toBe(1);
    expect(rs.alphaHistogram).toEqual(rs.trueAlphaHistogram);
    const rd = await runSyntheticCell(c, dense, 42, 0);
    expect(rd.mcc).toBeLessThan(rs.mcc - 0.15);
    expect(rd.supportF1).toBeLessThan(0.7);
  });

  it('aggregates runs into the per-arm, per-size report', async () => {
    const c = tiny({
      autoencoder: { encoderHidden: [8], decoderHidden: [8], steps: 20, batch: 32, penaltyDelay: 0, penaltyRamp: 0 },
    });
    const r = await runSyntheticExperiment(c);
    const j = jsonReport(r);
    expect(Object.keys(j.arms)).toEqual(['sparse', 'no-sparsity']);
    for (const arm of Object.values(j.arms))
      expect(Object.keys(arm['42']).slice(0, 3)).toEqual(['mcc', 'mccSpearman', 'supportF1']);
    expect(formatTable(r)).toMatch(/n_h .*\| sparse .*\| no-sparsity/);
  });

  it('aggregates over seeds as the hand-written formula did: mean, sample sd (n − 1, 0 for one seed), min, values in run order', () => {
    const metrics = ['mcc', 'mccSpearman', 'supportF1', 'blockSupportF1', 'blockR2', 'reconstruction'] as const;
    // The formula the experiment used before arquero (experiment.ts `stat`).
    const previous = (values: number[]) => {
      const mean = values.reduce((a, b) => a + b, 0) / Math.max(1, values.length);
      const sd =
        values.length > 1 ? Math.sqrt(values.reduce((a, b) => a + (b - mean) ** 2, 0) / (values.length - 1)) : 0;
      return { mean, sd, min: Math.min(...values), values };
    };
    const rng = new Rng(5);
    const c = parseSyntheticExperimentConfig({ seeds: [0, 1, 2], stateDims: [128, 256] });
    const run = (arm: string, stateDim: number, seed: number) =>
      ({
        arm,
        stateDim,
        seed,
        trainSeconds: 10 * rng.float(),
        evalSeconds: rng.float(),
        ...Object.fromEntries(metrics.map((m) => [m, rng.float()])),
      }) as unknown as SyntheticRunResult;
    const runs = c.stateDims.flatMap((n) => c.seeds.flatMap((seed) => c.arms.map((a) => run(a.name, n, seed))));
    const byArm = aggregateRuns(c, runs);
    for (const arm of c.arms) {
      for (const n of c.stateDims) {
        const rs = runs.filter((r) => r.arm === arm.name && r.stateDim === n);
        for (const m of metrics) {
          const want = previous(rs.map((r) => r[m]));
          const got = byArm[arm.name][n][m];
          expect(got.values).toEqual(want.values);
          expect(got.min).toBe(want.min);
          expect(got.mean).toBeCloseTo(want.mean, 12);
          expect(got.sd).toBeCloseTo(want.sd, 12);
          expect(got.sd.toFixed(3)).toBe(want.sd.toFixed(3));
        }
        expect(byArm[arm.name][n].seconds).toBeCloseTo(
          rs.reduce((a, r) => a + r.trainSeconds + r.evalSeconds, 0),
          10,
        );
      }
    }
    const one = aggregateRuns(
      { ...c, seeds: [0] },
      runs.filter((r) => r.seed === 0),
    );
    expect(one.sparse['128'].mcc.sd).toBe(0);
    expect(one.sparse['128'].mcc.mean).toBe(
      runs.find((r) => r.seed === 0 && r.arm === 'sparse' && r.stateDim === 128)!.mcc,
    );
  });
});
