/**
 * Per-slot PCA with an explained-variance threshold and the participation ratio — the subspace
 * construction of paper A (arXiv:2510.00494; docs/method-reference.md §3 "Subspace analysis, formulas": a
 * top-k PCA basis Uᵢ per slot, k chosen by an explained-variance threshold; PR = (Σλ)² / Σλ²).
 * The eigendecomposition runs on the C×C scatter matrix (ml-matrix, float64), so its cost is
 * independent of N (≈ 0.2–0.5 s at C = 256, ≈ 12 s at C = 1,024 here), or, when a slot has fewer
 * vectors than dimensions, on the N×N Gram matrix (`pcaFromGram`; the same components, O(N³)).
 */
import { EigenvalueDecomposition, Matrix } from 'ml-matrix';
import { slotProducts } from './products.js';
import { columnMeans, frobeniusInner, trace, type Slot } from './slots.js';

export interface PcaOptions {
  /** chosen: 0.9 — paper A's threshold is not known (docs/method-reference.md §3: "e.g. 90–95%, unknown in A") */
  varianceThreshold: number;
  /** upper bound on k (default: no bound beyond C) */
  maxComponents?: number;
}

export const DEFAULT_PCA_OPTIONS: PcaOptions = { varianceThreshold: 0.9 };

export interface PcaResult {
  width: number;
  rows: number;
  /** components kept: the smallest k whose cumulative explained variance reaches the threshold */
  k: number;
  /** [C] variances along the components (eigenvalues of the covariance), descending, ≥ 0 */
  eigenvalues: Float64Array;
  /** [C] share of the total variance per component */
  explained: Float64Array;
  /** components stored: C from the scatter; from the Gram matrix only those of nonzero variance (≤ N) */
  componentCount: number;
  /** [C, componentCount] row-major; column j is component j (orthonormal), ordered like `eigenvalues` */
  components: Float64Array;
  /** total variance tr(Σ) */
  totalVariance: number;
}

/**
 * PCA of one slot from its centred scatter matrix.
 * @param scatter [C, C] row-major, X̃ᵀX̃ of the slot
 */
export function pcaFromScatter(
  scatter: Float64Array,
  C: number,
  rows: number,
  o: PcaOptions = DEFAULT_PCA_OPTIONS,
): PcaResult {
  if (!(o.varianceThreshold > 0 && o.varianceThreshold <= 1))
    throw new Error(`pca: varianceThreshold must be in (0, 1], got ${o.varianceThreshold}`);
  const scale = 1 / Math.max(rows - 1, 1);
  const m = new Matrix(C, C);
  for (let a = 0; a < C; a++)
    for (let b = 0; b < C; b++) m.set(a, b, 0.5 * (scatter[a * C + b] + scatter[b * C + a]) * scale);
  const eig = new EigenvalueDecomposition(m, { assumeSymmetric: true });
  const values = eig.realEigenvalues;
  const vecs = eig.eigenvectorMatrix;
  const order = values.map((_, i) => i).sort((i, j) => values[j] - values[i]);
  const eigenvalues = Float64Array.from(order, (i) => Math.max(values[i], 0));
  const components = new Float64Array(C * C);
  order.forEach((src, j) => {
    for (let a = 0; a < C; a++) components[a * C + j] = vecs.get(a, src);
  });
  return pcaResult(eigenvalues, components, C, C, rows, o);
}

/** Explained shares and k at the threshold (never more than the stored components). */
function pcaResult(
  eigenvalues: Float64Array,
  components: Float64Array,
  componentCount: number,
  C: number,
  rows: number,
  o: PcaOptions,
): PcaResult {
  const total = eigenvalues.reduce((s, v) => s + v, 0);
  const explained = eigenvalues.map((v) => (total > 0 ? v / total : 0));
  let k = 0;
  if (total > 0) {
    let cum = 0;
    while (k < componentCount && cum < o.varianceThreshold - 1e-12) cum += explained[k++];
  }
  if (o.maxComponents !== undefined) k = Math.min(k, o.maxComponents);
  return { width: C, rows, k, eigenvalues, explained, componentCount, components, totalVariance: total };
}

/**
 * PCA of one slot from its N×N Gram matrix G = X̃X̃ᵀ (float64, from the vectors): the nonzero
 * eigenvalues σ of G are those of the scatter X̃ᵀX̃, and uⱼ = X̃ᵀvⱼ / √σⱼ is the matching component.
 * Equal to `pcaFromScatter` up to rounding, at O(N²C + N³) instead of O(C³): the path for slots with
 * fewer vectors than dimensions (H1/H2 latents: 256 vectors of width 1,024). Components of zero
 * variance are not stored (`componentCount` ≤ N − 1, the rank of a centred slot).
 */
export function pcaFromGram(
  slot: Slot,
  o: PcaOptions = DEFAULT_PCA_OPTIONS,
  mu: Float64Array = columnMeans(slot),
): PcaResult {
  if (!(o.varianceThreshold > 0 && o.varianceThreshold <= 1))
    throw new Error(`pca: varianceThreshold must be in (0, 1], got ${o.varianceThreshold}`);
  const { rows: N, width: C } = slot;
  const x = new Float64Array(N * C); // [N, C] centred
  for (let r = 0; r < N; r++) for (let c = 0; c < C; c++) x[r * C + c] = slot.vectors[r * C + c] - mu[c];
  const g = new Matrix(N, N);
  for (let a = 0; a < N; a++)
    for (let b = a; b < N; b++) {
      let t = 0;
      for (let c = 0; c < C; c++) t += x[a * C + c] * x[b * C + c];
      g.set(a, b, t);
      g.set(b, a, t);
    }
  const eig = new EigenvalueDecomposition(g, { assumeSymmetric: true });
  const values = eig.realEigenvalues;
  const vecs = eig.eigenvectorMatrix;
  const order = values.map((_, i) => i).sort((i, j) => values[j] - values[i]);
  const top = Math.max(values[order[0]] ?? 0, 0);
  const kept = order.filter((i) => values[i] > top * 1e-10).slice(0, C);
  const R = kept.length;
  const scale = 1 / Math.max(N - 1, 1);
  const eigenvalues = new Float64Array(C);
  kept.forEach((src, j) => (eigenvalues[j] = values[src] * scale));
  const components = new Float64Array(C * R); // [C, R]
  kept.forEach((src, j) => {
    const norm = 1 / Math.sqrt(values[src]);
    for (let r = 0; r < N; r++) {
      const v = vecs.get(r, src) * norm;
      if (v === 0) continue;
      for (let c = 0; c < C; c++) components[c * R + j] += x[r * C + c] * v;
    }
  });
  return pcaResult(eigenvalues, components, R, C, N, o);
}

/** PCA of one slot by the cheaper route: the Gram matrix when it has fewer vectors than dimensions, else its scatter. */
export function slotPca(
  slot: Slot,
  scatter: Float64Array,
  o: PcaOptions = DEFAULT_PCA_OPTIONS,
  mu?: Float64Array,
): PcaResult {
  return slot.rows < slot.width ? pcaFromGram(slot, o, mu) : pcaFromScatter(scatter, slot.width, slot.rows, o);
}

/** PCA of one slot (the scatter product runs on the TF.js backend; the Gram route needs none). */
export async function pca(slot: Slot, o: PcaOptions = DEFAULT_PCA_OPTIONS): Promise<PcaResult> {
  if (slot.rows < slot.width) return pcaFromGram(slot, o);
  const p = await slotProducts([slot]);
  return pcaFromScatter(p.scatter[0], slot.width, slot.rows, o);
}

/**
 * The first k components as a basis.
 * @returns [C, k] row-major, orthonormal columns
 */
export function pcaBasis(p: PcaResult, k: number = p.k): Float64Array {
  const { width: C, componentCount: R } = p;
  if (k > R)
    throw new Error(
      `pcaBasis: k = ${k} exceeds the ${R} stored components (width ${C}${R < C ? `, ${p.rows} vectors` : ''})`,
    );
  const u = new Float64Array(C * k);
  for (let a = 0; a < C; a++) for (let j = 0; j < k; j++) u[a * k + j] = p.components[a * R + j];
  return u;
}

/** PR = (Σλ)² / Σλ²: 1 when one direction holds all variance, C when variance is isotropic. */
export function participationRatio(eigenvalues: ArrayLike<number>): number {
  let s = 0;
  let s2 = 0;
  for (let i = 0; i < eigenvalues.length; i++) {
    s += eigenvalues[i];
    s2 += eigenvalues[i] * eigenvalues[i];
  }
  return s2 > 0 ? (s * s) / s2 : Number.NaN;
}

/** The same ratio from a symmetric scatter/covariance matrix: (tr Σ)² / ‖Σ‖²_F (no eigendecomposition). */
export function participationRatioOfMatrix(m: Float64Array, C: number): number {
  const f2 = frobeniusInner(m, m);
  return f2 > 0 ? trace(m, C) ** 2 / f2 : Number.NaN;
}

/**
 * Scatter of all slots' vectors pooled into one set: Σᵢ X̃ᵢᵀX̃ᵢ + Σᵢ nᵢ(μᵢ − μ)(μᵢ − μ)ᵀ.
 * @returns [C, C] row-major
 */
export function pooledScatter(
  scatter: readonly Float64Array[],
  means: readonly Float64Array[],
  rows: readonly number[],
  C: number,
): Float64Array {
  const n = rows.reduce((a, b) => a + b, 0);
  const mu = new Float64Array(C);
  means.forEach((m, i) => m.forEach((v, c) => (mu[c] += (v * rows[i]) / n)));
  const out = new Float64Array(C * C);
  scatter.forEach((s, i) => {
    const d = means[i].map((v, c) => v - mu[c]);
    for (let a = 0; a < C; a++) for (let b = 0; b < C; b++) out[a * C + b] += s[a * C + b] + rows[i] * d[a] * d[b];
  });
  return out;
}
