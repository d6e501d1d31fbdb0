/**
 * Synthetic latent slots with a known subspace structure, for tests, the bench and the sample
 * latents the notebooks ship with. Each slot k draws
 *   z = μₖ + B_shared·a + Bₖ·b + noise·ε,   a ~ N(0, sharedStd²·I), b ~ N(0, privateStd²·I), ε ~ N(0, I)
 * with B_shared [C, sharedRank] common to all slots (a correlated across slots for the same example
 * by `sharedCorrelation`, which is what CKA sees) and Bₖ [C, privateRank] private to slot k, all
 * columns mutually orthonormal, and slot means μₖ = separation·eₖ-like unit offsets. Shared variance
 * makes slots redundant (high cross-capture); `separation` moves them apart (high silhouette).
 */
import { Rng, type LatentTrace } from '@telepath/core';
import { orthonormalise } from './angles.js';
import type { Slot } from './slots.js';

export interface SyntheticSlotsOptions {
  slots: number;
  rows: number;
  width: number;
  sharedRank: number;
  privateRank: number;
  sharedStd: number;
  privateStd: number;
  noise: number;
  /** distance of each slot mean from the origin, along a direction of its own */
  separation: number;
  /** correlation of example n's shared coefficients across slots (0: independent per slot, 1: identical) */
  sharedCorrelation: number;
  seed: number;
}

export const DEFAULT_SYNTHETIC_SLOTS: SyntheticSlotsOptions = {
  slots: 4,
  rows: 200,
  width: 32,
  sharedRank: 4,
  privateRank: 4,
  sharedStd: 1,
  privateStd: 1,
  noise: 0.01,
  separation: 0,
  sharedCorrelation: 0,
  seed: 0,
};

/**
 * k random orthonormal directions in R^C.
 * @returns [C, k] row-major
 */
export function randomOrthonormal(rng: Rng, C: number, k: number): Float64Array {
  const m = Float64Array.from({ length: C * k }, () => rng.normal());
  const { basis, rank } = orthonormalise(m, C, k);
  if (rank !== k) throw new Error(`randomOrthonormal: got rank ${rank} < ${k}`);
  return basis;
}

/**
 * Adds U·(std·g) to every row of `out` ([N, C] row-major) for the columns `cols` of a [C, k] basis U;
 * g = ρ·common[n, j] + √(1 − ρ²)·fresh when `common` ([N, cols]) is given, else fresh.
 */
function addSubspaceDraws(
  out: Float64Array,
  rng: Rng,
  u: Float64Array,
  C: number,
  k: number,
  std: number,
  cols: number[],
  common?: { g: Float64Array; rho: number },
): void {
  const N = out.length / C;
  for (let n = 0; n < N; n++) {
    for (let jj = 0; jj < cols.length; jj++) {
      const j = cols[jj];
      const fresh = rng.normal();
      const g =
        std * (common ? common.rho * common.g[n * cols.length + jj] + Math.sqrt(1 - common.rho ** 2) * fresh : fresh);
      for (let c = 0; c < C; c++) out[n * C + c] += g * u[c * k + j];
    }
  }
}

/** Slots drawn from the model above; example ids are `ex0…`. */
export function syntheticSlots(opts: Partial<SyntheticSlotsOptions> = {}): LatentTrace {
  const o = { ...DEFAULT_SYNTHETIC_SLOTS, ...opts };
  const { slots: S, rows: N, width: C } = o;
  const dirs = o.sharedRank + S * o.privateRank + (o.separation > 0 ? S : 0);
  if (dirs > C) throw new Error(`syntheticSlots: ${dirs} orthogonal directions needed, width is ${C}`);
  const rng = new Rng(o.seed);
  const basis = randomOrthonormal(rng.fork('basis'), C, Math.max(dirs, 1)); // [C, dirs]
  const k = Math.max(dirs, 1);
  if (!(o.sharedCorrelation >= 0 && o.sharedCorrelation <= 1))
    throw new Error(`syntheticSlots: sharedCorrelation must be in [0, 1], got ${o.sharedCorrelation}`);
  const commonRng = rng.fork('common');
  const common = {
    g: Float64Array.from({ length: N * o.sharedRank }, () => commonRng.normal()),
    rho: o.sharedCorrelation,
  }; // [N, sharedRank]
  const slots: Slot[] = [];
  for (let s = 0; s < S; s++) {
    const draw = rng.fork(`slot${s}`);
    const z = new Float64Array(N * C); // [N, C]
    addSubspaceDraws(
      z,
      draw.fork('shared'),
      basis,
      C,
      k,
      o.sharedStd,
      Array.from({ length: o.sharedRank }, (_, j) => j),
      common,
    );
    const priv = Array.from({ length: o.privateRank }, (_, j) => o.sharedRank + s * o.privateRank + j);
    addSubspaceDraws(z, draw.fork('private'), basis, C, k, o.privateStd, priv);
    const noise = draw.fork('noise');
    const meanDir = o.sharedRank + S * o.privateRank + s;
    for (let n = 0; n < N; n++) {
      for (let c = 0; c < C; c++) {
        z[n * C + c] += o.noise * noise.normal() + (o.separation > 0 ? o.separation * basis[c * k + meanDir] : 0);
      }
    }
    slots.push({ name: `slot${s}`, vectors: Float32Array.from(z), rows: N, width: C });
  }
  return { source: 'synthetic', slots, exampleIds: Array.from({ length: N }, (_, n) => `ex${n}`) };
}

/**
 * A slot whose rows lie in the span of a given basis: z = U·g, g ~ N(0, I).
 * @param u [C, k] row-major
 */
export function slotInSpan(name: string, rng: Rng, u: Float64Array, C: number, k: number, rows: number): Slot {
  const z = new Float64Array(rows * C);
  addSubspaceDraws(
    z,
    rng,
    u,
    C,
    k,
    1,
    Array.from({ length: k }, (_, j) => j),
  );
  return { name, vectors: Float32Array.from(z), rows, width: C };
}
