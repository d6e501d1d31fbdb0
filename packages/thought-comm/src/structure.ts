/**
 * Structure read-off of ThoughtComm ("Thought Communication in Multiagent Collaboration",
 * arXiv 2510.20733; docs/method-reference.md §1.1 relevance and agreement, §1.7 Eqs. 8–10): from the trained
 * decoder's Jacobian, which thoughts each agent depends on, the agreement level α_j and, for any
 * pair of agents, the shared and private thoughts.
 *   m_ij = mean_n |J_ij(ẑ_n)|                       element strength [n_h, Z]
 *   s_kj = mean_n ‖J(ẑ_n)[B_k, j]‖₂ / √d_k          agent relevance [A, Z] (§1.7 recommendation)
 * Two rules (ReadoutConfig.rule):
 *   paper     B̂_ij = 1 ⇔ max_n |J_ij(ẑ_n)| > ε·max (the paper's "∃ z: J_ij(z) ≠ 0" with a
 *             numerical zero ε); relevant(k, j) ⇔ ∃ i ∈ B_k: B̂_ij = 1 (§1.1 ∃-row rule)
 *   relative  relevant(k, j) ⇔ s_kj > τ·max_k' s_k'j  and  s_kj > τ_floor·max s (§1.7 recommendation)
 *   α_j = Σ_k relevant(k, j)
 */
import * as tf from '@tensorflow/tfjs-core';
import type { ReadoutConfig } from './config.js';
import { decoderJacobian } from './jacobian.js';
import type { Autoencoder } from './autoencoder.js';

export interface Structure {
  agents: number;
  stateDim: number;
  latentDim: number;
  /** m_ij: [n_h, Z] row-major. */
  elementStrength: Float32Array;
  /** B̂ at element level: [n_h, Z] row-major. */
  elementSupport: Uint8Array;
  /** s_kj: [A, Z] row-major. */
  relevance: Float32Array;
  /** B̂ at agent level: [A, Z] row-major. */
  agentSupport: Uint8Array;
  /** Per latent, the bitmask of agents it is relevant to. */
  latentAgents: number[];
  /** α_j per latent. */
  agreement: number[];
  /** Count of latents at each α = 0..A. */
  alphaHistogram: number[];
}

export interface PairDecomposition {
  shared: number[];
  privateA: number[];
  privateB: number[];
  irrelevant: number[];
}

/**
 * Reads the structure from the decoder Jacobian at codes z [N, Z] (standardised, e.g. `encode(ae, h)`),
 * processed in chunks of 32 samples (one asynchronous read each).
 */
export async function readStructure(
  ae: Autoencoder,
  z: tf.Tensor2D,
  agentRanges: [number, number][],
  cfg: ReadoutConfig,
): Promise<Structure> {
  const [N, Z] = z.shape;
  const H = ae.stateDim;
  const A = agentRanges.length;
  const m = new Float64Array(H * Z);
  const mx = new Float64Array(H * Z); // max_n |J_ij|
  const s = new Float64Array(A * Z);
  const chunk = 32;
  for (let start = 0; start < N; start += chunk) {
    const n = Math.min(chunk, N - start);
    const jt = tf.tidy(() => decoderJacobian(ae, tf.slice(z, [start, 0], [n, Z]) as tf.Tensor2D)); // [n, Z, n_h]
    let v: Float32Array;
    try {
      v = (await jt.data()) as Float32Array;
    } finally {
      jt.dispose();
    }
    for (let r = 0; r < n; r++) {
      for (let j = 0; j < Z; j++) {
        const base = (r * Z + j) * H;
        for (let i = 0; i < H; i++) {
          const a = Math.abs(v[base + i]);
          m[i * Z + j] += a / N;
          if (a > mx[i * Z + j]) mx[i * Z + j] = a;
        }
        agentRanges.forEach(([a, b], k) => {
          let sq = 0;
          for (let i = a; i < b; i++) sq += v[base + i] * v[base + i];
          s[k * Z + j] += Math.sqrt(sq / Math.max(1, b - a)) / N;
        });
      }
    }
  }
  if (cfg.rule === 'paper')
    return structureFromSupport(
      Float32Array.from(mx),
      Float32Array.from(m),
      Float32Array.from(s),
      agentRanges,
      Z,
      cfg.zeroTol,
    );
  return structureFromStrengths(Float32Array.from(m), Float32Array.from(s), A, H, Z, cfg);
}

/**
 * The paper's read-off from max_n |J_ij| [n_h, Z]: element support where it exceeds zeroTol × its
 * largest entry, and thought j relevant to agent k iff any row of k's block is in the support.
 * m and s are kept in the result as the strengths (not used for the decision).
 */
export function structureFromSupport(
  elementMax: Float32Array,
  m: Float32Array,
  s: Float32Array,
  agentRanges: [number, number][],
  Z: number,
  zeroTol: number,
): Structure {
  const A = agentRanges.length;
  const H = elementMax.length / Z;
  let top = 0;
  for (const x of elementMax) top = Math.max(top, x);
  const elementSupport = new Uint8Array(H * Z);
  for (let i = 0; i < H * Z; i++) elementSupport[i] = top > 0 && elementMax[i] > zeroTol * top ? 1 : 0;
  const inBlock = (k: number, j: number) => {
    const [from, to] = agentRanges[k];
    for (let i = from; i < to; i++) if (elementSupport[i * Z + j]) return true;
    return false;
  };
  return structureOf(m, s, elementSupport, A, H, Z, inBlock);
}

/** Thresholds strengths into supports (separated from the Jacobian so it is testable on its own). */
export function structureFromStrengths(
  m: Float32Array,
  s: Float32Array,
  A: number,
  H: number,
  Z: number,
  cfg: Pick<ReadoutConfig, 'elementTau' | 'blockTau' | 'floorTau'>,
): Structure {
  const elementSupport = new Uint8Array(H * Z);
  for (let i = 0; i < H; i++) {
    let max = 0;
    for (let j = 0; j < Z; j++) max = Math.max(max, m[i * Z + j]);
    for (let j = 0; j < Z; j++) elementSupport[i * Z + j] = max > 0 && m[i * Z + j] > cfg.elementTau * max ? 1 : 0;
  }
  let sMax = 0;
  for (const x of s) sMax = Math.max(sMax, x);
  const colMax = new Float32Array(Z);
  for (let j = 0; j < Z; j++) for (let k = 0; k < A; k++) colMax[j] = Math.max(colMax[j], s[k * Z + j]);
  const strong = (k: number, j: number) => {
    const v = s[k * Z + j];
    return v > cfg.blockTau * colMax[j] && v > cfg.floorTau * sMax;
  };
  return structureOf(m, s, elementSupport, A, H, Z, strong);
}

/** The structure once `relevant(k, j)` says whether thought j is agent k's: supports, masks, agreement levels. */
function structureOf(
  m: Float32Array,
  s: Float32Array,
  elementSupport: Uint8Array,
  A: number,
  H: number,
  Z: number,
  relevant: (k: number, j: number) => boolean,
): Structure {
  const agentSupport = new Uint8Array(A * Z);
  const latentAgents: number[] = [];
  const agreement: number[] = [];
  const alphaHistogram = new Array<number>(A + 1).fill(0);
  for (let j = 0; j < Z; j++) {
    let mask = 0;
    let alpha = 0;
    for (let k = 0; k < A; k++) {
      if (!relevant(k, j)) continue;
      agentSupport[k * Z + j] = 1;
      mask |= 1 << k;
      alpha += 1;
    }
    latentAgents.push(mask);
    agreement.push(alpha);
    alphaHistogram[alpha] += 1;
  }
  return {
    agents: A,
    stateDim: H,
    latentDim: Z,
    elementStrength: m,
    elementSupport,
    relevance: s,
    agentSupport,
    latentAgents,
    agreement,
    alphaHistogram,
  };
}

/** Latents relevant to agent k (Z_{H^(k)} of §1.1). */
export function relevantThoughts(st: Structure, k: number): number[] {
  checkAgent(st, k);
  return st.latentAgents.flatMap((mask, j) => ((mask >> k) & 1 ? [j] : []));
}

/** Shared, private and irrelevant thoughts for agents a and b (§1.1 pairwise decomposition). */
export function pairDecomposition(st: Structure, a: number, b: number): PairDecomposition {
  checkAgent(st, a);
  checkAgent(st, b);
  const out: PairDecomposition = { shared: [], privateA: [], privateB: [], irrelevant: [] };
  st.latentAgents.forEach((mask, j) => {
    const inA = (mask >> a) & 1;
    const inB = (mask >> b) & 1;
    if (inA && inB) out.shared.push(j);
    else if (inA) out.privateA.push(j);
    else if (inB) out.privateB.push(j);
    else out.irrelevant.push(j);
  });
  return out;
}

/** A name for an agent bitmask: agents as letters, e.g. 0b101 → "AC", 0 → "none". */
export function maskName(mask: number, agents: number): string {
  let out = '';
  for (let k = 0; k < agents; k++) if ((mask >> k) & 1) out += String.fromCharCode(65 + k);
  return out === '' ? 'none' : out;
}

function checkAgent(st: Structure, k: number): void {
  if (!Number.isInteger(k) || k < 0 || k >= st.agents) throw new Error(`agent ${k} outside [0, ${st.agents})`);
}
