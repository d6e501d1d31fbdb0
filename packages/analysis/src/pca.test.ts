import { Rng } from '@telepath/core';
import { expectClose, forEachBackend } from '@telepath/core/testing';
import { describe, expect, it } from 'vitest';
import {
  participationRatio,
  participationRatioOfMatrix,
  pca,
  pcaBasis,
  pcaFromGram,
  pcaFromScatter,
  pooledScatter,
  slotPca,
} from './pca.js';
import { columnMeans, projector, slotFromRows, type Slot } from './slots.js';

/** Centred scatter X̃ᵀX̃ in float64, by brute force. */
function scatterOf(s: Slot): Float64Array {
  const C = s.width;
  const mu = columnMeans(s);
  const out = new Float64Array(C * C);
  for (let r = 0; r < s.rows; r++)
    for (let a = 0; a < C; a++)
      for (let b = 0; b < C; b++) out[a * C + b] += (s.vectors[r * C + a] - mu[a]) * (s.vectors[r * C + b] - mu[b]);
  return out;
}

/** Rows with independent coordinates of the given standard deviations. */
function axisSlot(rng: Rng, stds: number[], rows: number): Slot {
  return slotFromRows(
    'axes',
    Array.from({ length: rows }, () => stds.map((s) => s * rng.normal())),
  );
}

describe('pcaFromScatter', () => {
  it('orders variances, keeps the fewest components reaching the threshold, and returns an orthonormal basis', () => {
    const C = 4;
    const scatter = new Float64Array([1, 0, 0, 0, 0, 9, 0, 0, 0, 0, 4, 0, 0, 0, 0, 0.5].map((v) => v * 10)); // diag 10,90,40,5; N = 11 → variances 1, 9, 4, 0.5
    const p = pcaFromScatter(scatter, C, 11, { varianceThreshold: 0.9 });
    expectClose(p.eigenvalues, [9, 4, 1, 0.5], { rtol: 1e-12, atol: 1e-12 });
    expect(p.k).toBe(3); // 9/14.5 = 0.62, 13/14.5 = 0.897, 14/14.5 = 0.966
    expect(pcaFromScatter(scatter, C, 11, { varianceThreshold: 0.85 }).k).toBe(2);
    expect(pcaFromScatter(scatter, C, 11, { varianceThreshold: 1 }).k).toBe(4);
    expect(pcaFromScatter(scatter, C, 11, { varianceThreshold: 0.99, maxComponents: 2 }).k).toBe(2);
    expect(Math.abs(p.components[1 * C + 0])).toBeCloseTo(1, 12); // first component = axis 1
    const u = pcaBasis(p, 4);
    const proj = projector(u, C, 4);
    expectClose(proj, [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1], { atol: 1e-12 });
  });

  it('gives k = 0 and NaN participation for a constant slot', () => {
    const p = pcaFromScatter(new Float64Array(9), 3, 5, { varianceThreshold: 0.9 });
    expect(p.k).toBe(0);
    expect(participationRatio(p.eigenvalues)).toBeNaN();
  });

  it('rejects a threshold outside (0, 1]', () => {
    expect(() => pcaFromScatter(new Float64Array(4), 2, 3, { varianceThreshold: 1.5 })).toThrow(/varianceThreshold/);
  });
});

describe('pcaFromGram (fewer vectors than dimensions)', () => {
  /** N vectors of width C on a rank-r subspace with decaying variances, plus a little isotropic noise. */
  function lowRankSlot(rng: Rng, N: number, C: number, r: number): Slot {
    const basis = Array.from({ length: r }, () => Array.from({ length: C }, () => rng.normal()));
    return slotFromRows(
      'low-rank',
      Array.from({ length: N }, () => {
        const w = basis.map((_, j) => rng.normal() * (r - j));
        return Array.from(
          { length: C },
          (_, c) => w.reduce((t, wj, j) => t + wj * basis[j][c], 0) + 0.01 * rng.normal(),
        );
      }),
    );
  }

  it('gives the scatter route’s variances, k and subspaces, with orthonormal components and none of zero variance', () => {
    const s = lowRankSlot(new Rng(11), 20, 48, 6);
    const viaScatter = pcaFromScatter(scatterOf(s), 48, 20, { varianceThreshold: 0.95 });
    const viaGram = pcaFromGram(s, { varianceThreshold: 0.95 });
    expectClose(viaGram.eigenvalues, viaScatter.eigenvalues, { rtol: 1e-9, atol: 1e-9 });
    expect(viaGram.k).toBe(viaScatter.k);
    expect(viaGram.componentCount).toBe(19); // rank of 20 centred vectors
    expect(viaGram.totalVariance).toBeCloseTo(viaScatter.totalVariance, 9);
    const k = viaGram.k;
    expectClose(projector(pcaBasis(viaGram, k), 48, k), projector(pcaBasis(viaScatter, k), 48, k), { atol: 1e-9 });
    const u = pcaBasis(viaGram, 19);
    for (let i = 0; i < 19; i++)
      for (let j = 0; j < 19; j++) {
        let dot = 0;
        for (let c = 0; c < 48; c++) dot += u[c * 19 + i] * u[c * 19 + j];
        expect(dot).toBeCloseTo(i === j ? 1 : 0, 7);
      }
    expect(() => pcaBasis(viaGram, 20)).toThrow(/k = 20 exceeds the 19 stored components \(width 48, 20 vectors\)/);
    expect(pcaFromGram(s, { varianceThreshold: 1 }).k).toBe(19);
  });

  it('slotPca takes the Gram route only when a slot has fewer vectors than dimensions', () => {
    const wide = lowRankSlot(new Rng(12), 10, 16, 3);
    expect(slotPca(wide, scatterOf(wide)).componentCount).toBe(9);
    const tall = axisSlot(new Rng(13), [3, 1, 0.2, 2], 50);
    expect(slotPca(tall, scatterOf(tall)).componentCount).toBe(4);
    expectClose(slotPca(tall, scatterOf(tall)).eigenvalues, pcaFromGram(tall).eigenvalues, { rtol: 1e-9, atol: 1e-12 });
  });
});

describe('participation ratio', () => {
  it('is 1 for one direction, C for isotropic variance, and equal from eigenvalues or the matrix', () => {
    expect(participationRatio([5, 0, 0])).toBe(1);
    expect(participationRatio([2, 2, 2, 2])).toBe(4);
    expect(participationRatio([3, 1])).toBeCloseTo(16 / 10, 12);
    const m = new Float64Array([2, 1, 0, 1, 3, 0.5, 0, 0.5, 1]); // symmetric
    const p = pcaFromScatter(m, 3, 2, { varianceThreshold: 1 });
    expect(participationRatioOfMatrix(m, 3)).toBeCloseTo(participationRatio(p.eigenvalues), 10);
  });
});

describe('pooledScatter', () => {
  it('equals the scatter of the concatenated vectors', () => {
    const rng = new Rng(3);
    const a = axisSlot(rng.fork('a'), [1, 2, 0.5], 30);
    const b = slotFromRows(
      'b',
      Array.from({ length: 20 }, () => [5 + rng.normal(), -1 + rng.normal(), rng.normal()]),
    );
    const both: Slot = { name: 'ab', rows: 50, width: 3, vectors: Float32Array.from([...a.vectors, ...b.vectors]) };
    const pooled = pooledScatter([scatterOf(a), scatterOf(b)], [columnMeans(a), columnMeans(b)], [30, 20], 3);
    expectClose(pooled, scatterOf(both), { rtol: 1e-9, atol: 1e-9 });
  });
});

forEachBackend(
  (backend, ready) => {
    it(`pca(slot) on ${backend} matches the float64 scatter`, async (ctx) => {
      if (!ready()) return ctx.skip();
      const s = axisSlot(new Rng(5), [3, 1, 0.2, 2], 400);
      const ref = pcaFromScatter(scatterOf(s), 4, 400, { varianceThreshold: 0.95 });
      const p = await pca(s, { varianceThreshold: 0.95 });
      expectClose(p.eigenvalues, ref.eigenvalues, { rtol: 1e-4, atol: 1e-6 });
      expect(p.k).toBe(ref.k);
    });
  },
  ['cpu', 'wasm'],
);
