/**
 * Cross-capture between latent slots — paper A (arXiv:2510.00494; docs/method-reference.md §3): with Uᵢ the
 * top-kᵢ PCA basis of slot i and X̃ⱼ slot j centred,
 *   Cᵢⱼ = ‖X̃ⱼUᵢ‖²_F / ‖X̃ⱼ‖²_F   (share of slot j's variance inside slot i's principal subspace)
 *   H_off = mean of Cᵢⱼ over i ≠ j   (1 = fully redundant slots, ≈ k/C = unrelated ones)
 * computed as tr(PᵢSⱼ) / tr(Sⱼ) with the projector Pᵢ = UᵢUᵢᵀ and the scatter Sⱼ = X̃ⱼᵀX̃ⱼ, so
 * no N-sized product is repeated per pair.
 */
import { DEFAULT_PCA_OPTIONS, pcaBasis, slotPca, type PcaOptions, type PcaResult } from './pca.js';
import { slotProducts, type SlotProducts } from './products.js';
import { frobeniusInner, meanOffDiagonal, projector, trace, type Slot } from './slots.js';

export interface CrossCaptureResult {
  /** [S][S]: row i = subspace of slot i, column j = variance of slot j */
  matrix: number[][];
  /** mean off-diagonal entry */
  hOff: number;
  /** per-slot PCA at the threshold */
  pcas: PcaResult[];
  /** [S] projectors Pᵢ = UᵢUᵢᵀ, each [C, C] row-major (reused for subspace affinity) */
  projectors: Float64Array[];
}

/** Cᵢⱼ from precomputed PCA results and scatter matrices (each [C, C] row-major). */
export function crossCaptureFromProducts(products: SlotProducts, pcas: readonly PcaResult[]): CrossCaptureResult {
  const C = products.width;
  const projectors = pcas.map((p) => projector(pcaBasis(p), C, p.k));
  const totals = products.scatter.map((s) => trace(s, C));
  const matrix = projectors.map((pi) =>
    products.scatter.map((sj, j) => (totals[j] > 0 ? frobeniusInner(pi, sj) / totals[j] : Number.NaN)),
  );
  return { matrix, hOff: meanOffDiagonal(matrix), pcas: [...pcas], projectors };
}

/** Cross-capture matrix and H_off of a set of slots (same width C; N may differ per slot). */
export async function crossCapture(
  slots: readonly Slot[],
  o: PcaOptions = DEFAULT_PCA_OPTIONS,
): Promise<CrossCaptureResult> {
  const products = await slotProducts(slots);
  const pcas = products.scatter.map((s, i) => slotPca(slots[i], s, o, products.means[i]));
  return crossCaptureFromProducts(products, pcas);
}

/** H_off of a cross-capture matrix: the mean over i ≠ j. */
export function hOff(matrix: readonly (readonly number[])[]): number {
  return meanOffDiagonal(matrix);
}
