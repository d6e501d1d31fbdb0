import { describe, expect, it } from 'vitest';
import { parseConfig, Rng } from '@telepath/core';
import { DEFAULT_SYNTHETIC_CONFIG } from './config.js';
import {
  agentRanges,
  agentSupport,
  hasFullColumnRank,
  latentGroups,
  makeWorld,
  mixWorld,
  sampleWorld,
  structuralSparsityViolations,
  worldJacobian,
} from './synthetic.js';

const cfg = (o: object = {}) => parseConfig(DEFAULT_SYNTHETIC_CONFIG, { stateDim: 128, ...o });

describe('synthetic generator', () => {
  it('splits rows between agents and lists latents by agent set', () => {
    expect(agentRanges(128, 3)).toEqual([
      [0, 43],
      [43, 86],
      [86, 128],
    ]);
    const masks = latentGroups(cfg());
    // 4 shared by all (0b111), 2 per pair (AB, AC, BC), 2 private per agent.
    expect(masks).toEqual([7, 7, 7, 7, 3, 3, 5, 5, 6, 6, 1, 1, 2, 2, 4, 4]);
  });

  it('component design: each agent uses exactly its latents, rows are sparse, structural sparsity holds', () => {
    const w = makeWorld(cfg(), new Rng(1));
    const Z = w.latentDim;
    const ag = agentSupport(w);
    for (let k = 0; k < 3; k++)
      for (let j = 0; j < Z; j++) expect(ag[k * Z + j], `agent ${k}, latent ${j}`).toBe((w.latentAgents[j] >> k) & 1);
    for (let i = 0; i < w.stateDim; i++) {
      const size = w.support.subarray(i * Z, (i + 1) * Z).reduce((a, b) => a + b, 0);
      expect(size).toBeGreaterThanOrEqual(2);
      expect(size).toBeLessThanOrEqual(3);
    }
    expect(structuralSparsityViolations(w.support, w.stateDim, Z)).toEqual([]);
  });

  it('block design: every row of an agent uses all its latents, so structural sparsity fails', () => {
    const w = makeWorld(cfg({ design: 'block' }), new Rng(1));
    const Z = w.latentDim;
    w.agentRanges.forEach(([s, e], k) => {
      for (let i = s; i < e; i++)
        for (let j = 0; j < Z; j++) expect(w.support[i * Z + j]).toBe((w.latentAgents[j] >> k) & 1);
    });
    expect(structuralSparsityViolations(w.support, w.stateDim, Z)).toHaveLength(Z);
  });

  it('the Jacobian of the mixing has support F and matches finite differences', () => {
    const w = makeWorld(cfg({ stateDim: 36 }), new Rng(2));
    const { stateDim: H, latentDim: Z } = w;
    const z = sampleWorld(w, 1, new Rng(3)).z;
    const J = worldJacobian(w, z);
    const eps = 1e-3;
    for (let j = 0; j < Z; j++) {
      const zp = z.slice();
      const zm = z.slice();
      zp[j] += eps;
      zm[j] -= eps;
      const hp = mixWorld(w, zp, 1);
      const hm = mixWorld(w, zm, 1);
      for (let i = 0; i < H; i++) {
        const fd = (hp[i] - hm[i]) / (2 * eps);
        expect(Math.abs(fd - J[i * Z + j])).toBeLessThan(2e-3);
        expect(J[i * Z + j] !== 0).toBe(w.support[i * Z + j] === 1);
      }
    }
  });

  it('latents are Laplace(0, b) and the data is a deterministic function of the seed', () => {
    const w = makeWorld(cfg({ laplaceScale: 2 }), new Rng(4));
    const a = sampleWorld(w, 4000, new Rng(5));
    const b = sampleWorld(makeWorld(cfg({ laplaceScale: 2 }), new Rng(4)), 4000, new Rng(5));
    expect(a.h.every((x, i) => x === b.h[i])).toBe(true);
    const mean = a.z.reduce((x, y) => x + y, 0) / a.z.length;
    const variance = a.z.reduce((x, y) => x + (y - mean) ** 2, 0) / a.z.length;
    expect(Math.abs(mean)).toBeLessThan(0.05);
    expect(variance).toBeGreaterThan(0.9 * 8); // Laplace(0, b): variance 2b² = 8
    expect(variance).toBeLessThan(1.1 * 8);
  });

  it('checks that A has full column rank (f injective)', () => {
    const w = makeWorld(cfg(), new Rng(1));
    expect(hasFullColumnRank(w.weights, w.stateDim, w.latentDim)).toBe(true);
    expect(hasFullColumnRank(Float32Array.from([1, 2, 2, 4, 3, 6]), 3, 2)).toBe(false); // column 2 = 2 × column 1
    expect(hasFullColumnRank(Float32Array.from([1, 0, 0, 1, 1, 1]), 3, 2)).toBe(true);
  });

  it('rejects agents with fewer rows than latents', () => {
    expect(() => makeWorld(cfg({ stateDim: 12 }), new Rng(0))).toThrow(/needs at least/);
  });
});
