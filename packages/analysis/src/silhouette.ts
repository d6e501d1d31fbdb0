/**
 * Silhouette of latent vectors labelled by slot (docs/method-reference.md §3): for vector x in slot c,
 * a = mean distance to the other vectors of c, b = min over other slots of the mean distance,
 * s(x) = (b − a) / max(a, b); the score is the mean of s(x). s > 0: slots separated, s < 0:
 * interleaved. A slot of one vector gets s = 0.
 *   cosine    — exact over all vectors: with x̂ = x/‖x‖ the mean of 1 − x̂·ŷ over a slot is
 *               1 − x̂·mean(ŷ), so only per-slot sums of unit vectors are needed (O(N·S·C)).
 *   euclidean — pairwise distances do not factor, so it runs on a seeded sample of at most
 *               `maxPerSlot` vectors per slot (exact when no slot is larger), distances from a
 *               Gram matrix on TF.js in row blocks.
 */
import * as tf from '@tensorflow/tfjs-core';
import { Rng, matMulT, tidy } from '@telepath/core';
import { requireBackend } from './products.js';
import { checkSlots, type Slot } from './slots.js';

export type SilhouetteMetric = 'cosine' | 'euclidean';

export interface SilhouetteOptions {
  metric: SilhouetteMetric;
  /** euclidean only: vectors sampled per slot; chosen: 250 (16 slots → a 4000² distance matrix, < 1 s on wasm) */
  maxPerSlot?: number;
  /** euclidean only: seed of the sample */
  seed?: number;
}

export interface SilhouetteResult {
  metric: SilhouetteMetric;
  /** mean s(x) over the vectors used */
  score: number;
  /** [S] mean s(x) per slot */
  perSlot: number[];
  /** vectors used */
  used: number;
  /** false when the euclidean score comes from a sample */
  exact: boolean;
}

export const DEFAULT_MAX_PER_SLOT = 250;
const BLOCK = 1024;

/** s = (b − a)/max(a, b), with a slot of one member scoring 0. */
function silhouetteOf(a: number, b: number, members: number): number {
  if (members <= 1) return 0;
  const m = Math.max(a, b);
  return m > 0 ? (b - a) / m : 0;
}

function summarise(
  metric: SilhouetteMetric,
  s: Float64Array,
  labels: Int32Array,
  S: number,
  exact: boolean,
): SilhouetteResult {
  const sum = new Float64Array(S);
  const cnt = new Float64Array(S);
  s.forEach((v, i) => {
    sum[labels[i]] += v;
    cnt[labels[i]]++;
  });
  const score = s.reduce((x, y) => x + y, 0) / s.length;
  return { metric, score, perSlot: [...sum].map((v, k) => v / cnt[k]), used: s.length, exact };
}

function cosineSilhouette(slots: readonly Slot[]): SilhouetteResult {
  const S = slots.length;
  const C = slots[0].width;
  const total = slots.reduce((a, s) => a + s.rows, 0);
  const unit = new Float64Array(total * C); // [ΣN, C] unit vectors (zero vectors stay 0)
  const labels = new Int32Array(total);
  const self = new Float64Array(total); // x̂·x̂: 1, or 0 for a zero vector
  const sums = slots.map(() => new Float64Array(C)); // S × [C]
  let row = 0;
  slots.forEach((s, k) => {
    for (let r = 0; r < s.rows; r++, row++) {
      let n2 = 0;
      for (let c = 0; c < C; c++) n2 += s.vectors[r * C + c] ** 2;
      const inv = n2 > 0 ? 1 / Math.sqrt(n2) : 0;
      self[row] = n2 > 0 ? 1 : 0;
      for (let c = 0; c < C; c++) {
        const v = s.vectors[r * C + c] * inv;
        unit[row * C + c] = v;
        sums[k][c] += v;
      }
      labels[row] = k;
    }
  });
  const out = new Float64Array(total);
  const dots = new Float64Array(S);
  for (let i = 0; i < total; i++) {
    for (let k = 0; k < S; k++) {
      let t = 0;
      for (let c = 0; c < C; c++) t += unit[i * C + c] * sums[k][c];
      dots[k] = t;
    }
    const own = labels[i];
    const nOwn = slots[own].rows;
    const a = nOwn > 1 ? (nOwn - 1 - (dots[own] - self[i])) / (nOwn - 1) : 0; // the other nOwn − 1 members
    let b = Infinity;
    for (let k = 0; k < S; k++) if (k !== own) b = Math.min(b, (slots[k].rows - dots[k]) / slots[k].rows);
    out[i] = silhouetteOf(a, b, nOwn);
  }
  return summarise('cosine', out, labels, S, true);
}

/** Indices of up to `m` rows of `n`, drawn without replacement, in ascending order. */
function sampleRows(rng: Rng, n: number, m: number): number[] {
  if (m >= n) return Array.from({ length: n }, (_, i) => i);
  const idx = Array.from({ length: n }, (_, i) => i);
  for (let i = 0; i < m; i++) {
    const j = i + rng.int(n - i);
    [idx[i], idx[j]] = [idx[j], idx[i]];
  }
  return idx.slice(0, m).sort((x, y) => x - y);
}

async function euclideanSilhouette(
  slots: readonly Slot[],
  maxPerSlot: number,
  seed: number,
): Promise<SilhouetteResult> {
  requireBackend('silhouette');
  const S = slots.length;
  const C = slots[0].width;
  const rng = new Rng(seed).fork('silhouette');
  const picks = slots.map((s, k) => sampleRows(rng.fork(`slot${k}`), s.rows, maxPerSlot));
  const m = picks.reduce((a, p) => a + p.length, 0);
  const exact = picks.every((p, k) => p.length === slots[k].rows);
  const x = new Float32Array(m * C); // [M, C], centred on the sample mean (distances are unchanged, cancellation smaller)
  const labels = new Int32Array(m);
  const onehot = new Float32Array(m * S); // [M, S]
  const mu = new Float64Array(C);
  let row = 0;
  picks.forEach((p, k) =>
    p.forEach((r) => {
      for (let c = 0; c < C; c++) mu[c] += slots[k].vectors[r * C + c] / m;
      labels[row] = k;
      onehot[row * S + k] = 1;
      row++;
    }),
  );
  row = 0;
  picks.forEach((p, k) =>
    p.forEach((r) => {
      for (let c = 0; c < C; c++) x[row * C + c] = slots[k].vectors[r * C + c] - mu[c];
      row++;
    }),
  );
  const counts = picks.map((p) => p.length);
  const sums = new Float32Array(m * S); // [M, S] summed distances to each slot's sample
  const xt = tf.tensor2d(x, [m, C]);
  const lab = tf.tensor2d(onehot, [m, S]);
  try {
    const [xT, norms] = tidy(() => [tf.transpose(xt), tf.sum(tf.square(xt), 1)]); // [C, M], [M]
    try {
      for (let start = 0; start < m; start += BLOCK) {
        const rows = Math.min(BLOCK, m - start);
        const part = tidy(() => {
          const xb = tf.slice(xt, [start, 0], [rows, C]); // [B, C]
          const g = tf.matMul(xb, xT as tf.Tensor2D); // [B, M]
          const nb = tf.reshape(tf.slice(norms, [start], [rows]), [rows, 1]); // [B, 1]
          const d2 = tf.relu(tf.sub(tf.add(nb, tf.reshape(norms, [1, m])), tf.mul(g, 2))); // [B, M]
          const offDiag = tf.sub(
            1,
            tf.cast(tf.oneHot(tf.range(start, start + rows, 1, 'int32') as tf.Tensor1D, m), 'float32'),
          ); // [B, M]: zero self-distances
          return matMulT(tf.mul(tf.sqrt(d2), offDiag) as tf.Tensor2D, lab, false, false); // [B, S]
        });
        try {
          sums.set(await part.data(), start * S);
        } finally {
          part.dispose();
        }
      }
    } finally {
      xT.dispose();
      norms.dispose();
    }
  } finally {
    xt.dispose();
    lab.dispose();
  }
  const out = new Float64Array(m);
  for (let i = 0; i < m; i++) {
    const own = labels[i];
    const a = counts[own] > 1 ? sums[i * S + own] / (counts[own] - 1) : 0;
    let b = Infinity;
    for (let k = 0; k < S; k++) if (k !== own) b = Math.min(b, sums[i * S + k] / counts[k]);
    out[i] = silhouetteOf(a, b, counts[own]);
  }
  return summarise('euclidean', out, labels, S, exact);
}

/** Silhouette of the slots' vectors, each labelled by its slot (≥ 2 slots of equal width); euclidean reads back asynchronously. */
export async function silhouette(
  slots: readonly Slot[],
  o: SilhouetteOptions = { metric: 'cosine' },
): Promise<SilhouetteResult> {
  checkSlots(slots, { sameWidth: true });
  if (slots.length < 2) throw new Error('silhouette: needs at least 2 slots');
  if (o.metric === 'cosine') return cosineSilhouette(slots);
  if (o.metric === 'euclidean') return euclideanSilhouette(slots, o.maxPerSlot ?? DEFAULT_MAX_PER_SLOT, o.seed ?? 0);
  throw new Error(`silhouette: unknown metric "${String(o.metric)}". Expected one of: cosine, euclidean`);
}
