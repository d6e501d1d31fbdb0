/**
 * The subspace analysis of one latent trace (paper A, arXiv:2510.00494; docs/method-reference.md §3): per-slot
 * PCA at an explained-variance threshold, cross-capture and H_off, silhouette by slot (cosine
 * exact, Euclidean on a seeded sample), principal angles and subspace affinity, linear CKA
 * between slots, participation ratios. Pure computation; `analyzeRun` (run.ts) adds files.
 */
import type { LatentTrace } from '@telepath/core';
import { principalAngles, subspaceAffinity } from './angles.js';
import { ckaMatrixFromProducts } from './cka.js';
import { crossCaptureFromProducts } from './cross-capture.js';
import {
  DEFAULT_PCA_OPTIONS,
  participationRatio,
  participationRatioOfMatrix,
  pcaBasis,
  pooledScatter,
  slotPca,
  type PcaOptions,
} from './pca.js';
import { slotProducts } from './products.js';
import { DEFAULT_MAX_PER_SLOT, silhouette } from './silhouette.js';
import { checkSlots, meanOffDiagonal } from './slots.js';

export interface AnalysisOptions {
  pca: PcaOptions;
  /** principal-angle spectra use the top m components of each slot; chosen: 8 (an SVD per pair stays < 10 ms) */
  angleComponents: number;
  /** Euclidean silhouette sample per slot (cosine is always exact) */
  silhouetteMaxPerSlot: number;
  seed: number;
  /** compute linear CKA between slots (needs the same N in every slot); the cross products are ≈ 85% of the cost at 16 slots */
  cka: boolean;
}

export const DEFAULT_ANALYSIS_OPTIONS: AnalysisOptions = {
  pca: DEFAULT_PCA_OPTIONS,
  cka: true,
  angleComponents: 8,
  silhouetteMaxPerSlot: DEFAULT_MAX_PER_SLOT,
  seed: 0,
};

/** One row of the per-slot table. */
export interface SlotStats {
  slot: string;
  rows: number;
  width: number;
  /** PCA components at the variance threshold */
  k: number;
  /** share of variance on the first component */
  top1: number;
  /** participation ratio of the slot's covariance */
  pr: number;
  /** tr(Σ) */
  variance: number;
  /** mean ‖z‖ of the raw vectors */
  meanNorm: number;
  /** mean over j ≠ i of Cᵢⱼ: how much of the other slots this slot's subspace captures */
  captures: number;
  /** mean over i ≠ j of Cᵢⱼ (column j = this slot): how much of this slot the others capture */
  capturedBy: number;
  silCosine: number;
  silEuclidean: number;
  /** mean CKA with the other slots (NaN when slots hold different examples) */
  cka: number;
}

export interface SubspaceSummary {
  source: string;
  slots: number;
  width: number;
  rows: number[];
  varianceThreshold: number;
  meanK: number;
  /** mean off-diagonal cross-capture */
  hOff: number;
  /** H_off expected for unrelated isotropic slots: mean k / C */
  hOffBaseline: number;
  silhouetteCosine: number;
  silhouetteEuclidean: number;
  /** vectors in the Euclidean silhouette and whether that was all of them */
  silhouetteEuclideanUsed: number;
  silhouetteEuclideanExact: boolean;
  /** participation ratio of all slots' vectors pooled */
  pooledPr: number;
  /** mean off-diagonal linear CKA (NaN when not computable) */
  ckaOff: number;
  /** mean off-diagonal subspace affinity (mean cos² of principal angles of the threshold subspaces) */
  affinityOff: number;
  /** mean over slot pairs of the smallest principal angle (degrees, top-m components) */
  firstAngleDeg: number;
}

export interface SubspaceAnalysis {
  summary: SubspaceSummary;
  slotStats: SlotStats[];
  slotNames: string[];
  /** [S][S] cross-capture Cᵢⱼ */
  crossCapture: number[][];
  /** [S][S] linear CKA, or null when not asked for or the slots do not hold the same examples */
  cka: number[][] | null;
  /** [S][S] mean cos² of principal angles between threshold subspaces */
  affinity: number[][];
  /** [S][S][m] principal angles in degrees between the top-m component subspaces */
  angles: number[][][];
  /** wall time per stage in ms */
  timings: Record<string, number>;
}

const mean = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const deg = (r: number) => (r * 180) / Math.PI;

/** Analyse the slots of a latent trace (≥ 2 slots of one width). Needs a started TF.js backend; reads back asynchronously. */
export async function analyzeTrace(trace: LatentTrace, opts: Partial<AnalysisOptions> = {}): Promise<SubspaceAnalysis> {
  const o = { ...DEFAULT_ANALYSIS_OPTIONS, ...opts };
  const slots = trace.slots;
  checkSlots(slots, { sameWidth: true, minRows: 2 });
  if (slots.length < 2)
    throw new Error(`analyzeTrace: ${slots.length} slot(s); the subspace analysis needs at least 2`);
  const S = slots.length;
  const C = slots[0].width;
  const timings: Record<string, number> = {};
  let t = performance.now();
  const lap = (name: string) => {
    const now = performance.now();
    timings[name] = now - t;
    t = now;
  };
  const withCka = o.cka && slots.every((s) => s.rows === slots[0].rows);
  const products = await slotProducts(slots, { cross: withCka });
  lap('products');
  const pcas = products.scatter.map((s, i) => slotPca(slots[i], s, o.pca, products.means[i]));
  lap('pca');
  const cc = crossCaptureFromProducts(products, pcas);
  const cka = withCka ? ckaMatrixFromProducts(products) : null;
  const affinity = cc.projectors.map((pi, i) =>
    cc.projectors.map((pj, j) => subspaceAffinity(pi, pcas[i].k, pj, pcas[j].k)),
  );
  lap('crossCapture');
  const m = Math.min(o.angleComponents, ...pcas.map((p) => p.componentCount));
  const bases = pcas.map((p) => pcaBasis(p, m));
  const angles = bases.map((a, i) =>
    bases.map((b, j) => (i === j ? new Array<number>(m).fill(0) : principalAngles(a, m, b, m, C).map(deg))),
  );
  lap('angles');
  const silCos = await silhouette(slots, { metric: 'cosine' });
  const silEuc = await silhouette(slots, { metric: 'euclidean', maxPerSlot: o.silhouetteMaxPerSlot, seed: o.seed });
  lap('silhouette');
  const pooledPr = participationRatioOfMatrix(
    pooledScatter(
      products.scatter,
      products.means,
      slots.map((s) => s.rows),
      C,
    ),
    C,
  );
  const offRow = (mat: number[][], i: number) => mean(mat[i].filter((_, j) => j !== i));
  const offCol = (mat: number[][], j: number) => mean(mat.map((r) => r[j]).filter((_, i) => i !== j));
  const slotStats: SlotStats[] = slots.map((s, i) => {
    let norms = 0;
    for (let r = 0; r < s.rows; r++) {
      let n2 = 0;
      for (let c = 0; c < C; c++) n2 += s.vectors[r * C + c] ** 2;
      norms += Math.sqrt(n2);
    }
    return {
      slot: s.name,
      rows: s.rows,
      width: C,
      k: pcas[i].k,
      top1: pcas[i].explained[0],
      pr: participationRatio(pcas[i].eigenvalues),
      variance: pcas[i].totalVariance,
      meanNorm: norms / s.rows,
      captures: offRow(cc.matrix, i),
      capturedBy: offCol(cc.matrix, i),
      silCosine: silCos.perSlot[i],
      silEuclidean: silEuc.perSlot[i],
      cka: cka ? offRow(cka, i) : Number.NaN,
    };
  });
  const pairs = angles.flatMap((row, i) => row.filter((_, j) => j !== i).map((a) => a[0] ?? Number.NaN));
  const summary: SubspaceSummary = {
    source: trace.source,
    slots: S,
    width: C,
    rows: slots.map((s) => s.rows),
    varianceThreshold: o.pca.varianceThreshold,
    meanK: mean(pcas.map((p) => p.k)),
    hOff: cc.hOff,
    hOffBaseline: mean(pcas.map((p) => p.k)) / C,
    silhouetteCosine: silCos.score,
    silhouetteEuclidean: silEuc.score,
    silhouetteEuclideanUsed: silEuc.used,
    silhouetteEuclideanExact: silEuc.exact,
    pooledPr,
    ckaOff: cka ? meanOffDiagonal(cka) : Number.NaN,
    affinityOff: meanOffDiagonal(affinity),
    firstAngleDeg: mean(pairs),
  };
  lap('stats');
  return {
    summary,
    slotStats,
    slotNames: slots.map((s) => s.name),
    crossCapture: cc.matrix,
    cka,
    affinity,
    angles,
    timings,
  };
}
