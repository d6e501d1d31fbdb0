import { beforeAll, describe, expect, it } from 'vitest';
import { initBackend } from '@telepath/core';
import { expectNoLeak } from '@telepath/core/testing';
import { parseSyntheticExperimentConfig, runSyntheticCell, runSyntheticExperiment } from './experiment.js';
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
    autoencoder: { encoderHidden: [64, 64], decoderHidden: [64, 64], steps: 700, batch: 64, penaltyDelay: 100, penaltyRamp: 200, lr: 3e-3, lambda: 0.2 },
    ...o,
  });

describe('synthetic experiment', () => {
  it('rejects unknown keys, in arms too', () => {
    expect(() => parseSyntheticExperimentConfig({ stateDim: [1] })).toThrow(/unknown config key "stateDim"/);
    expect(() => parseSyntheticExperimentConfig({ arms: [{ name: 'x', autoencoder: { lamda: 1 } }] })).toThrow(/lamda/);
    expect(() => parseSyntheticExperimentConfig({ method: 'colar' })).toThrow(/thought-comm/);
    expect(() => parseSyntheticExperimentConfig({ autoencoder: { penalty: 'l2' } })).toThrow(/Expected one of: l1, group, l1\+group/);
    expect(() => parseSyntheticExperimentConfig({ synthetic: { design: 'blocks' } })).toThrow(/Expected one of: component, block/);
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
    const c = tiny({ autoencoder: { encoderHidden: [8], decoderHidden: [8], steps: 20, batch: 32, penaltyDelay: 0, penaltyRamp: 0 } });
    const r = await runSyntheticExperiment(c);
    const j = jsonReport(r);
    expect(Object.keys(j.arms)).toEqual(['sparse', 'no-sparsity']);
    for (const arm of Object.values(j.arms)) expect(Object.keys(arm['42']).slice(0, 3)).toEqual(['mcc', 'mccSpearman', 'supportF1']);
    expect(formatTable(r)).toMatch(/n_h .*\| sparse .*\| no-sparsity/);
  });
});
