/**
 * Identification metrics for ThoughtComm's synthetic experiment ("Thought Communication in
 * Multiagent Collaboration", arXiv 2510.20733; docs/method-reference.md §1.12, formulas inferred there):
 * - MCC: ρ_ij = |corr(z_i, ẑ_j)| (Pearson, or Spearman = Pearson of ranks) on held-out samples,
 *   π* = Hungarian argmax of Σ_i ρ_{i,π(i)}, MCC = (1/n_z) Σ_i ρ_{i,π*(i)}.
 * - Support recovery up to permutation: B̂'s columns permuted by π*, compared with B element-wise
 *   (precision, recall, F1).
 * Matrices are row-major Float32Arrays: z [N, Z], ẑ [N, Ẑ], supports [R, Z].
 */
import { maxAssignment } from './hungarian.js';

export type CorrelationKind = 'pearson' | 'spearman';

export interface MccResult {
  mcc: number;
  /** π*: perm[i] = estimated latent matched to true latent i (−1 if none). */
  perm: number[];
  /** ρ_{i,π*(i)} per true latent. */
  perLatent: number[];
  /** |corr| matrix [Z][Ẑ]. */
  corr: number[][];
}

export interface SupportScores {
  precision: number;
  recall: number;
  f1: number;
  truePositives: number;
  predicted: number;
  actual: number;
}

/** Column j of a row-major [n, d] matrix. */
export function column(x: Float32Array, n: number, d: number, j: number): Float64Array {
  const out = new Float64Array(n);
  for (let s = 0; s < n; s++) out[s] = x[s * d + j];
  return out;
}

/** Ranks 1..n with ties given their average rank. */
export function ranks(x: ArrayLike<number>): Float64Array {
  const n = x.length;
  const idx = Array.from({ length: n }, (_, i) => i).sort((a, b) => x[a] - x[b]);
  const out = new Float64Array(n);
  for (let start = 0; start < n;) {
    let end = start + 1;
    while (end < n && x[idx[end]] === x[idx[start]]) end++;
    const r = (start + end + 1) / 2; // mean of ranks start+1..end
    for (let t = start; t < end; t++) out[idx[t]] = r;
    start = end;
  }
  return out;
}

/** Pearson correlation of two equal-length vectors (0 when either is constant). */
export function pearson(a: ArrayLike<number>, b: ArrayLike<number>): number {
  const n = a.length;
  if (n !== b.length) throw new Error(`pearson: lengths ${n} and ${b.length} differ`);
  let ma = 0;
  let mb = 0;
  for (let i = 0; i < n; i++) {
    ma += a[i] / n;
    mb += b[i] / n;
  }
  let sab = 0;
  let saa = 0;
  let sbb = 0;
  for (let i = 0; i < n; i++) {
    const da = a[i] - ma;
    const db = b[i] - mb;
    sab += da * db;
    saa += da * da;
    sbb += db * db;
  }
  return saa > 0 && sbb > 0 ? sab / Math.sqrt(saa * sbb) : 0;
}

export function spearman(a: ArrayLike<number>, b: ArrayLike<number>): number {
  return pearson(ranks(a), ranks(b));
}

/** |corr| between every true latent and every estimated one: [Z][Ẑ]. */
export function absCorrelationMatrix(
  z: Float32Array,
  zHat: Float32Array,
  n: number,
  Z: number,
  ZHat: number,
  kind: CorrelationKind = 'pearson',
): number[][] {
  const prep = (x: Float32Array, d: number, j: number) =>
    kind === 'spearman' ? ranks(column(x, n, d, j)) : column(x, n, d, j);
  const zc = Array.from({ length: Z }, (_, i) => prep(z, Z, i));
  const hc = Array.from({ length: ZHat }, (_, j) => prep(zHat, ZHat, j));
  return zc.map((a) => hc.map((b) => Math.abs(pearson(a, b))));
}

/** Mean correlation coefficient under the best one-to-one matching. */
export function mcc(
  z: Float32Array,
  zHat: Float32Array,
  n: number,
  Z: number,
  ZHat: number,
  kind: CorrelationKind = 'pearson',
): MccResult {
  const corr = absCorrelationMatrix(z, zHat, n, Z, ZHat, kind);
  return mccFromCorrelation(corr);
}

/** MCC from a precomputed |corr| matrix [Z][Ẑ]. */
export function mccFromCorrelation(corr: number[][]): MccResult {
  const { assignment } = maxAssignment(corr);
  const perLatent = assignment.map((j, i) => (j >= 0 ? corr[i][j] : 0));
  return {
    mcc: perLatent.reduce((a, b) => a + b, 0) / Math.max(1, perLatent.length),
    perm: assignment,
    perLatent,
    corr,
  };
}

/**
 * Precision / recall / F1 of an estimated support [R, Ẑ] against the true one [R, Z], with
 * estimated column perm[j] standing for true column j. Estimated columns matched to no true
 * column count as predictions (they lower precision).
 */
export function supportScores(
  truth: Uint8Array,
  est: Uint8Array,
  rows: number,
  Z: number,
  ZHat: number,
  perm: number[],
): SupportScores {
  let tp = 0;
  let actual = 0;
  let predicted = 0;
  for (let r = 0; r < rows; r++) {
    for (let j = 0; j < Z; j++) {
      const t = truth[r * Z + j];
      actual += t;
      const e = perm[j] >= 0 ? est[r * ZHat + perm[j]] : 0;
      if (t && e) tp += 1;
    }
    for (let c = 0; c < ZHat; c++) predicted += est[r * ZHat + c];
  }
  const precision = predicted > 0 ? tp / predicted : 0;
  const recall = actual > 0 ? tp / actual : 0;
  const f1 = precision + recall > 0 ? (2 * precision * recall) / (precision + recall) : 0;
  return { precision, recall, f1, truePositives: tp, predicted, actual };
}
