/**
 * Synthetic data-generating process for ThoughtComm's identification claims ("Thought
 * Communication in Multiagent Collaboration", arXiv 2510.20733; docs/method-reference.md §1.1 generative model,
 * §1.11 synthetic experiment and the recommended design, items 1–4).
 *
 *   z ~ i.i.d. Laplace(0, b)                          [N, Z]
 *   h_i = g( Σ_j A_ij φ_j(z_j) ) (+ noise)            [N, n_h]
 *   φ_j(u) = u + c_j tanh(u),  g(u) = u + γ tanh(u)     strictly increasing, non-constant derivative
 *
 * A has support F exactly, so J_f(z) = diag(g')·A·diag(φ'(z)) has support F at every z, and f is
 * injective (φ and g are, and A has full column rank). Agent k owns rows agentRanges[k]; its rows
 * use only the latents relevant to it (shared by all, by its pairs, or private).
 * - design 'component': every row uses 2–3 of the agent's latents and for every latent j the
 *   intersection of the supports of the rows that use j is {j} (structural sparsity, §1.11 item 3),
 *   which makes per-coordinate identification possible; checked by `structuralSparsityViolations`.
 * - design 'block': every row of agent k uses all of k's latents (dense blocks), so only the
 *   agent-block structure is identifiable (the failed reproduction's setting, §1.11).
 */
import type { Rng } from '@telepath/core';
import type { SyntheticConfig } from './config.js';

export interface SyntheticSample {
  n: number;
  /** [N, Z] row-major */
  z: Float32Array;
  /** [N, n_h] row-major */
  h: Float32Array;
}

export interface SyntheticWorld {
  config: SyntheticConfig;
  stateDim: number;
  latentDim: number;
  /** Agent k owns rows [start, end). */
  agentRanges: [number, number][];
  /** Per latent, the bitmask of agents it is relevant to (bit k = agent k). */
  latentAgents: number[];
  /** F: [n_h, Z] row-major, 1 where row i depends on latent j. */
  support: Uint8Array;
  /** A: [n_h, Z] row-major, zero outside F. */
  weights: Float32Array;
  /** c_j of φ_j: [Z]. */
  curvature: Float32Array;
}

/** Row ranges of n_a agents over n_h rows, as even as possible (earlier agents get the extra rows). */
export function agentRanges(stateDim: number, agents: number): [number, number][] {
  const base = Math.floor(stateDim / agents);
  const extra = stateDim % agents;
  const out: [number, number][] = [];
  let start = 0;
  for (let k = 0; k < agents; k++) {
    const d = base + (k < extra ? 1 : 0);
    out.push([start, start + d]);
    start += d;
  }
  return out;
}

/** Agent bitmask of every latent: shared-by-all first, then each pair, then private ones. */
export function latentGroups(
  c: Pick<SyntheticConfig, 'agents' | 'sharedByAll' | 'sharedByPair' | 'privatePerAgent'>,
): number[] {
  const all = (1 << c.agents) - 1;
  const out: number[] = [];
  for (let i = 0; i < c.sharedByAll; i++) out.push(all);
  for (let a = 0; a < c.agents; a++) {
    for (let b = a + 1; b < c.agents; b++) for (let i = 0; i < c.sharedByPair; i++) out.push((1 << a) | (1 << b));
  }
  for (let a = 0; a < c.agents; a++) for (let i = 0; i < c.privatePerAgent; i++) out.push(1 << a);
  return out;
}

/** Builds the ground-truth structure and mixing. All draws come from `rng`. */
export function makeWorld(c: SyntheticConfig, rng: Rng): SyntheticWorld {
  if (c.agents < 1 || !Number.isInteger(c.agents))
    throw new Error(`synthetic: agents must be a positive integer, got ${c.agents}`);
  if (c.rowSupportMin < 1 || c.rowSupportMax < c.rowSupportMin)
    throw new Error(`synthetic: need 1 ≤ rowSupportMin ≤ rowSupportMax, got ${c.rowSupportMin}, ${c.rowSupportMax}`);
  const latentAgents = latentGroups(c);
  const Z = latentAgents.length;
  if (Z === 0) throw new Error('synthetic: no latents (sharedByAll + sharedByPair + privatePerAgent are all 0)');
  const ranges = agentRanges(c.stateDim, c.agents);
  const support = new Uint8Array(c.stateDim * Z);
  const supRng = rng.fork('support');
  for (let k = 0; k < c.agents; k++) {
    const rel = latentAgents.map((m, j) => ((m >> k) & 1 ? j : -1)).filter((j) => j >= 0);
    const [start, end] = ranges[k];
    if (rel.length === 0) continue;
    if (c.design === 'block') {
      for (let i = start; i < end; i++) for (const j of rel) support[i * Z + j] = 1;
      continue;
    }
    const r = rel.length;
    const d = end - start;
    // Rows {rel[p], rel[p+1]} for every p (cyclic): each latent gets two rows meeting only in it.
    // With fewer than 3 latents that is impossible, so each latent gets a row of its own.
    if (d < r) throw new Error(`synthetic: agent ${k} has ${d} rows but needs at least ${r} to cover its ${r} latents`);
    let i = start;
    for (let p = 0; p < r; p++, i++) {
      support[i * Z + rel[p]] = 1;
      if (r >= 3) support[i * Z + rel[(p + 1) % r]] = 1;
    }
    for (; i < end; i++) {
      const size = Math.min(r, c.rowSupportMin + supRng.int(c.rowSupportMax - c.rowSupportMin + 1));
      for (const j of supRng.shuffle([...rel]).slice(0, size)) support[i * Z + j] = 1;
    }
  }
  const wRng = rng.fork('weights');
  const weights = new Float32Array(c.stateDim * Z);
  for (let i = 0; i < c.stateDim; i++) {
    let norm = 0;
    for (let j = 0; j < Z; j++) {
      if (!support[i * Z + j]) continue;
      const w = (wRng.float() < 0.5 ? -1 : 1) * (c.weightMin + (c.weightMax - c.weightMin) * wRng.float());
      weights[i * Z + j] = w;
      norm += w * w;
    }
    // chosen: unit-norm rows keep every pre-activation at a comparable scale whatever its support size.
    const s = norm > 0 ? 1 / Math.sqrt(norm) : 0;
    for (let j = 0; j < Z; j++) weights[i * Z + j] *= s;
  }
  if (!hasFullColumnRank(weights, c.stateDim, Z))
    throw new Error(
      'synthetic: the mixing matrix A is rank-deficient, so f would not be injective; change the seed or the support sizes',
    );
  const cRng = rng.fork('curvature');
  const curvature = Float32Array.from({ length: Z }, () => c.curvatureMax * cRng.float());
  return {
    config: c,
    stateDim: c.stateDim,
    latentDim: Z,
    agentRanges: ranges,
    latentAgents,
    support,
    weights,
    curvature,
  };
}

/** N samples (z, h = f(z)) of the world. */
export function sampleWorld(w: SyntheticWorld, n: number, rng: Rng): SyntheticSample {
  const zRng = rng.fork('z');
  const z = new Float32Array(n * w.latentDim);
  for (let k = 0; k < z.length; k++) z[k] = zRng.laplace(w.config.laplaceScale);
  return { n, z, h: mixWorld(w, z, n, rng.fork('noise')) };
}

/** h = f(z) (+ noise drawn from noiseRng when noiseStd > 0): z [N, Z] → h [N, n_h]. */
export function mixWorld(w: SyntheticWorld, z: Float32Array, n: number, noiseRng?: Rng): Float32Array {
  const { stateDim: H, latentDim: Z } = w;
  const c = w.config;
  const rows = sparseRows(w);
  const h = new Float32Array(n * H);
  const phi = new Float64Array(Z);
  for (let s = 0; s < n; s++) {
    for (let j = 0; j < Z; j++) {
      const u = z[s * Z + j];
      phi[j] = u + w.curvature[j] * Math.tanh(u);
    }
    for (let i = 0; i < H; i++) {
      let u = 0;
      for (const [j, a] of rows[i]) u += a * phi[j];
      const noise = c.noiseStd > 0 && noiseRng ? c.noiseStd * noiseRng.normal() : 0;
      h[s * H + i] = u + c.outputCurvature * Math.tanh(u) + noise;
    }
  }
  return h;
}

/** Exact J_f(z) of one sample: [n_h, Z] row-major (for tests and diagnostics). */
export function worldJacobian(w: SyntheticWorld, z: Float32Array): Float32Array {
  const { stateDim: H, latentDim: Z } = w;
  const phi = new Float32Array(Z);
  const dphi = new Float32Array(Z);
  for (let j = 0; j < Z; j++) {
    const t = Math.tanh(z[j]);
    phi[j] = z[j] + w.curvature[j] * t;
    dphi[j] = 1 + w.curvature[j] * (1 - t * t);
  }
  const out = new Float32Array(H * Z);
  for (let i = 0; i < H; i++) {
    let u = 0;
    for (let j = 0; j < Z; j++) u += w.weights[i * Z + j] * phi[j];
    const t = Math.tanh(u);
    const dg = 1 + w.config.outputCurvature * (1 - t * t);
    for (let j = 0; j < Z; j++) out[i * Z + j] = dg * w.weights[i * Z + j] * dphi[j];
  }
  return out;
}

/** Agent-level support [A, Z]: 1 iff some row of agent k uses latent j. */
export function agentSupport(w: SyntheticWorld): Uint8Array {
  const Z = w.latentDim;
  const out = new Uint8Array(w.agentRanges.length * Z);
  w.agentRanges.forEach(([start, end], k) => {
    for (let i = start; i < end; i++) for (let j = 0; j < Z; j++) if (w.support[i * Z + j]) out[k * Z + j] = 1;
  });
  return out;
}

/**
 * Latents j for which ∩_{i: F_ij = 1} supp(F_i,:) ≠ {j} (structural sparsity fails, §1.11 item 3).
 * Empty for the 'component' design; every latent of an agent with ≥ 2 latents for 'block'.
 */
export function structuralSparsityViolations(support: Uint8Array, rows: number, cols: number): number[] {
  const bad: number[] = [];
  for (let j = 0; j < cols; j++) {
    const inter = new Uint8Array(cols).fill(1);
    let used = false;
    for (let i = 0; i < rows; i++) {
      if (!support[i * cols + j]) continue;
      used = true;
      for (let l = 0; l < cols; l++) inter[l] &= support[i * cols + l];
    }
    const size = inter.reduce((a, b) => a + b, 0);
    if (!used || size !== 1) bad.push(j);
  }
  return bad;
}

/** Whether A [rows, cols] (row-major) has full column rank: Gaussian elimination on AᵀA with partial pivoting. */
export function hasFullColumnRank(a: Float32Array, rows: number, cols: number, tol = 1e-8): boolean {
  const g = new Float64Array(cols * cols);
  for (let i = 0; i < rows; i++) {
    for (let p = 0; p < cols; p++) {
      const v = a[i * cols + p];
      if (v !== 0) for (let q = 0; q < cols; q++) g[p * cols + q] += v * a[i * cols + q];
    }
  }
  let scale = 0;
  for (let p = 0; p < cols; p++) scale = Math.max(scale, g[p * cols + p]);
  for (let p = 0; p < cols; p++) {
    let best = p;
    for (let r = p + 1; r < cols; r++) if (Math.abs(g[r * cols + p]) > Math.abs(g[best * cols + p])) best = r;
    if (!(Math.abs(g[best * cols + p]) > tol * scale)) return false;
    for (let q = 0; q < cols; q++) [g[p * cols + q], g[best * cols + q]] = [g[best * cols + q], g[p * cols + q]];
    for (let r = p + 1; r < cols; r++) {
      const f = g[r * cols + p] / g[p * cols + p];
      for (let q = p; q < cols; q++) g[r * cols + q] -= f * g[p * cols + q];
    }
  }
  return true;
}

function sparseRows(w: SyntheticWorld): [number, number][][] {
  const Z = w.latentDim;
  return Array.from({ length: w.stateDim }, (_, i) => {
    const row: [number, number][] = [];
    for (let j = 0; j < Z; j++) if (w.support[i * Z + j]) row.push([j, w.weights[i * Z + j]]);
    return row;
  });
}
