import { describe, expect, it } from 'vitest';
import { Rng } from '@telepath/core';
import { mcc, pearson, ranks, spearman, supportScores } from './metrics.js';

function laplaceMatrix(rng: Rng, n: number, d: number): Float32Array {
  return Float32Array.from({ length: n * d }, () => rng.laplace(1));
}

/** ẑ[:, perm[i]] = t_i(z[:, i]) for monotone t_i, so the matching must recover perm. */
function permuted(
  z: Float32Array,
  n: number,
  d: number,
  perm: number[],
  transform: (x: number, i: number) => number,
): Float32Array {
  const out = new Float32Array(n * d);
  for (let s = 0; s < n; s++) for (let i = 0; i < d; i++) out[s * d + perm[i]] = transform(z[s * d + i], i);
  return out;
}

describe('correlations', () => {
  it('ranks ties by their average rank', () => {
    expect([...ranks([10, 20, 20, 5])]).toEqual([2, 3.5, 3.5, 1]);
  });
  it('pearson and spearman on known vectors', () => {
    expect(pearson([1, 2, 3], [2, 4, 6])).toBeCloseTo(1, 12);
    expect(pearson([1, 2, 3], [3, 2, 1])).toBeCloseTo(-1, 12);
    expect(pearson([1, 1, 1], [1, 2, 3])).toBe(0);
    expect(spearman([1, 2, 3, 4], [1, 8, 27, 64])).toBeCloseTo(1, 12);
  });
});

describe('mcc', () => {
  const rng = new Rng(3);
  const n = 2000;
  const d = 6;
  const z = laplaceMatrix(rng, n, d);
  const perm = [2, 5, 0, 1, 4, 3];

  it('is 1 and recovers the permutation for sign-flipped, scaled copies', () => {
    const zHat = permuted(z, n, d, perm, (x, i) => (i % 2 ? -3 : 0.5) * x + i);
    const r = mcc(z, zHat, n, d, d);
    expect(r.perm).toEqual(perm);
    expect(r.mcc).toBeCloseTo(1, 6);
  });

  it('Spearman is 1 under monotone nonlinear maps, Pearson below 1', () => {
    const zHat = permuted(z, n, d, perm, (x) => Math.exp(x));
    const s = mcc(z, zHat, n, d, d, 'spearman');
    const p = mcc(z, zHat, n, d, d, 'pearson');
    expect(s.perm).toEqual(perm);
    expect(s.mcc).toBeCloseTo(1, 6);
    expect(p.mcc).toBeLessThan(0.95);
  });

  it('is low for independent codes', () => {
    const r = mcc(z, laplaceMatrix(new Rng(4), n, d), n, d, d);
    expect(r.mcc).toBeLessThan(0.1);
  });
});

describe('supportScores', () => {
  // truth [3 rows, 3 latents]; the estimate is the truth with columns permuted by perm.
  const truth = Uint8Array.from([1, 1, 0, 0, 1, 1, 1, 0, 1]);
  const perm = [2, 0, 1];
  const est = new Uint8Array(9);
  for (let r = 0; r < 3; r++) for (let j = 0; j < 3; j++) est[r * 3 + perm[j]] = truth[r * 3 + j];

  it('is perfect under the right permutation', () => {
    const s = supportScores(truth, est, 3, 3, 3, perm);
    expect(s).toMatchObject({ precision: 1, recall: 1, f1: 1, truePositives: 6 });
  });

  it('counts extra and missing entries', () => {
    const more = est.slice();
    more[0 * 3 + perm[2]] = 1; // an extra entry (row 0, true latent 2)
    more[1 * 3 + perm[1]] = 0; // a missing entry (row 1, true latent 1)
    const s = supportScores(truth, more, 3, 3, 3, perm);
    expect(s.precision).toBeCloseTo(5 / 6, 12);
    expect(s.recall).toBeCloseTo(5 / 6, 12);
    expect(s.f1).toBeCloseTo(5 / 6, 12);
  });

  it('is poor under the identity matching of a permuted estimate', () => {
    expect(supportScores(truth, est, 3, 3, 3, [0, 1, 2]).f1).toBeLessThan(0.7);
  });
});
