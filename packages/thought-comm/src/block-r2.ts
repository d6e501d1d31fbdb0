/**
 * Block R² of ThoughtComm's synthetic experiment ("Thought Communication in Multiagent
 * Collaboration", arXiv 2510.20733; Fig. 3 as described in docs/method-reference.md §1.11, formula §1.12):
 * estimated latents are grouped by the agent set the recovered structure assigns them (never by
 * their index), true latents by their true agent set; for true group a and estimated group b a
 * nonlinear regressor r_ab: ẑ_b → z_a is fitted on a train split and
 *   R²_ab = 1 − Σ‖z_a − r_ab(ẑ_b)‖² / Σ‖z_a − z̄_a‖²   on held-out samples.
 * Regressor (chosen): ridge regression on [1, x, random Fourier features of x], x = standardised ẑ_b,
 * solved through ml-matrix's Cholesky decomposition.
 */
import type { Rng } from '@telepath/core';
import { CholeskyDecomposition, Matrix } from 'ml-matrix';
import { maskName } from './structure.js';

export interface LatentGroup {
  mask: number;
  name: string;
  latents: number[];
}

export interface BlockR2Result {
  trueGroups: LatentGroup[];
  estimatedGroups: LatentGroup[];
  /** R²[a][b] for true group a, estimated group b (rows/cols as listed above). */
  matrix: number[][];
  /** Per true group, R² against the estimated group with the same agent set (0 when there is none). */
  matched: number[];
  /** Mean of `matched`: the headline block R². */
  blockR2: number;
}

export interface SplitCodes {
  z: Float32Array;
  zHat: Float32Array;
  n: number;
}

export interface BlockR2Options {
  features: number;
  ridge: number;
}
export const DEFAULT_BLOCK_R2_OPTIONS: BlockR2Options = {
  features: 200, // chosen: enough random features for ≤ 16-dimensional inputs at a 2-core budget
  ridge: 1e-3, // chosen: small ridge, features are O(1)
};

/** Groups latents by agent mask, in increasing mask order. */
export function groupByMask(masks: number[], agents: number): LatentGroup[] {
  const by = new Map<number, number[]>();
  masks.forEach((m, j) => by.set(m, [...(by.get(m) ?? []), j]));
  return [...by.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([mask, latents]) => ({ mask, name: maskName(mask, agents), latents }));
}

export function blockR2(
  train: SplitCodes,
  test: SplitCodes,
  Z: number,
  ZHat: number,
  trueMasks: number[],
  estMasks: number[],
  agents: number,
  rng: Rng,
  o: BlockR2Options = DEFAULT_BLOCK_R2_OPTIONS,
): BlockR2Result {
  const trueGroups = groupByMask(trueMasks, agents);
  const estimatedGroups = groupByMask(estMasks, agents);
  const matrix = trueGroups.map(() => estimatedGroups.map(() => 0));
  estimatedGroups.forEach((eg, b) => {
    const fr = rng.fork(`features/${eg.mask}`);
    const feat = makeFeatures(train.zHat, train.n, ZHat, eg.latents, o.features, fr);
    const phiTrain = feat(train.zHat, train.n);
    const phiTest = feat(test.zHat, test.n);
    const P = phiTrain.cols;
    const gram = new Float64Array(P * P);
    for (let s = 0; s < train.n; s++) {
      const row = phiTrain.data.subarray(s * P, (s + 1) * P);
      for (let p = 0; p < P; p++) {
        const v = row[p];
        if (v === 0) continue;
        for (let q = p; q < P; q++) gram[p * P + q] += v * row[q];
      }
    }
    for (let p = 0; p < P; p++) {
      gram[p * P + p] += o.ridge * train.n;
      for (let q = 0; q < p; q++) gram[p * P + q] = gram[q * P + p];
    }
    const solve = choleskySolver(gram, P);
    trueGroups.forEach((tg, a) => {
      let sse = 0;
      let sst = 0;
      for (const i of tg.latents) {
        const rhs = new Float64Array(P);
        for (let s = 0; s < train.n; s++) {
          const y = train.z[s * Z + i];
          for (let p = 0; p < P; p++) rhs[p] += phiTrain.data[s * P + p] * y;
        }
        const w = solve(rhs);
        let mean = 0;
        for (let s = 0; s < test.n; s++) mean += test.z[s * Z + i] / test.n;
        for (let s = 0; s < test.n; s++) {
          let pred = 0;
          for (let p = 0; p < P; p++) pred += phiTest.data[s * P + p] * w[p];
          const y = test.z[s * Z + i];
          sse += (y - pred) ** 2;
          sst += (y - mean) ** 2;
        }
      }
      matrix[a][b] = sst > 0 ? 1 - sse / sst : 0;
    });
  });
  const matched = trueGroups.map((tg, a) => {
    const b = estimatedGroups.findIndex((eg) => eg.mask === tg.mask);
    return b >= 0 ? Math.max(0, matrix[a][b]) : 0;
  });
  return {
    trueGroups,
    estimatedGroups,
    matrix,
    matched,
    blockR2: matched.reduce((x, y) => x + y, 0) / Math.max(1, matched.length),
  };
}

/** Feature map [1, x, √(2/D)·cos(xΩ/ℓ + β)] of the standardised selected columns; ℓ = √(#columns). */
function makeFeatures(
  x: Float32Array,
  n: number,
  d: number,
  cols: number[],
  D: number,
  rng: Rng,
): (x: Float32Array, n: number) => { data: Float64Array; cols: number } {
  const k = cols.length;
  const mean = cols.map((j) => {
    let m = 0;
    for (let s = 0; s < n; s++) m += x[s * d + j] / n;
    return m;
  });
  const std = cols.map((j, c) => {
    let v = 0;
    for (let s = 0; s < n; s++) v += (x[s * d + j] - mean[c]) ** 2 / n;
    return Math.max(1e-6, Math.sqrt(v));
  });
  const len = Math.sqrt(Math.max(1, k)); // chosen: median-distance-like bandwidth for unit-variance inputs
  const omega = Float64Array.from({ length: k * D }, () => rng.normal() / len);
  const beta = Float64Array.from({ length: D }, () => 2 * Math.PI * rng.float());
  const P = k === 0 ? 1 : 1 + k + D;
  return (xs, ns) => {
    const data = new Float64Array(ns * P);
    const u = new Float64Array(k);
    for (let s = 0; s < ns; s++) {
      const o = s * P;
      data[o] = 1;
      if (k === 0) continue;
      for (let c = 0; c < k; c++) u[c] = (xs[s * d + cols[c]] - mean[c]) / std[c];
      for (let c = 0; c < k; c++) data[o + 1 + c] = u[c];
      for (let f = 0; f < D; f++) {
        let a = beta[f];
        for (let c = 0; c < k; c++) a += u[c] * omega[c * D + f];
        data[o + 1 + k + f] = Math.sqrt(2 / D) * Math.cos(a);
      }
    }
    return { data, cols: P };
  };
}

/**
 * Solver of G w = b for a symmetric positive-definite G [P, P] (row-major), through ml-matrix's
 * Cholesky decomposition of G, factored once for every right-hand side.
 */
export function choleskySolver(g: Float64Array, P: number): (b: Float64Array) => Float64Array {
  const chol = new CholeskyDecomposition(Matrix.from1DArray(P, P, g));
  if (!chol.isPositiveDefinite()) throw new Error(`cholesky: the ${P}×${P} ridge Gram matrix is not positive definite`);
  return (b) => Float64Array.from(chol.solve(Matrix.columnVector(b)).getColumn(0));
}
