/**
 * Principal angles between subspaces (docs/method-reference.md §3: "singular values of UᵢᵀUⱼ (orthonormal U)
 * are cos θ₁ ≥ … ≥ cos θ_k") and their cheap summary, the subspace affinity
 *   tr(PᵢPⱼ) / min(kᵢ, kⱼ) = ‖UᵢᵀUⱼ‖²_F / min(kᵢ, kⱼ) = mean cos²θ over the min(kᵢ, kⱼ) angles,
 * which needs no SVD and so covers the full threshold subspaces of every slot pair.
 */
import { Matrix, SingularValueDecomposition } from 'ml-matrix';
import { frobeniusInner } from './slots.js';

/**
 * Principal angles in radians, ascending (θ₁ ≤ θ₂ ≤ …), min(ka, kb) of them.
 * @param a [C, ka] row-major, orthonormal columns
 * @param b [C, kb] row-major, orthonormal columns
 */
export function principalAngles(a: Float64Array, ka: number, b: Float64Array, kb: number, C: number): number[] {
  if (a.length !== C * ka || b.length !== C * kb)
    throw new Error(
      `principalAngles: bases of ${a.length} and ${b.length} values do not match [${C}, ${ka}] and [${C}, ${kb}]`,
    );
  if (ka === 0 || kb === 0) return [];
  const m = new Matrix(ka, kb); // Uₐᵀ U_b
  for (let i = 0; i < ka; i++) {
    for (let j = 0; j < kb; j++) {
      let t = 0;
      for (let c = 0; c < C; c++) t += a[c * ka + i] * b[c * kb + j];
      m.set(i, j, t);
    }
  }
  const svd = new SingularValueDecomposition(m, {
    computeLeftSingularVectors: false,
    computeRightSingularVectors: false,
    autoTranspose: true,
  });
  const cos = [...svd.diagonal].sort((x, y) => y - x).slice(0, Math.min(ka, kb));
  return cos.map((c) => Math.acos(Math.min(1, Math.max(-1, c))));
}

/**
 * Mean cos² of the principal angles between span(Uᵢ) and span(Uⱼ), from their projectors.
 * @param pi [C, C] projector of a kᵢ-dimensional subspace
 * @param pj [C, C] projector of a kⱼ-dimensional subspace
 */
export function subspaceAffinity(pi: Float64Array, ki: number, pj: Float64Array, kj: number): number {
  const k = Math.min(ki, kj);
  return k > 0 ? frobeniusInner(pi, pj) / k : Number.NaN;
}

/**
 * Orthonormal basis of the column span of a [C, k] matrix (modified Gram–Schmidt; columns that
 * become ≈ 0 are dropped). Used to build test subspaces and to orthonormalise raw directions.
 * @returns { basis: [C, r] row-major, rank r }
 */
export function orthonormalise(
  m: Float64Array,
  C: number,
  k: number,
  tol = 1e-10,
): { basis: Float64Array; rank: number } {
  const cols: Float64Array[] = [];
  for (let j = 0; j < k; j++) {
    const v = Float64Array.from({ length: C }, (_, c) => m[c * k + j]);
    for (const q of cols) {
      const d = frobeniusInner(q, v);
      for (let c = 0; c < C; c++) v[c] -= d * q[c];
    }
    const n = Math.sqrt(frobeniusInner(v, v));
    if (n > tol) cols.push(v.map((x) => x / n));
  }
  const r = cols.length;
  const basis = new Float64Array(C * r);
  cols.forEach((q, j) => q.forEach((x, c) => (basis[c * r + j] = x)));
  return { basis, rank: r };
}
