/**
 * CoLaR's Embedding Compress (arXiv 2505.16552): consecutive reasoning-token embeddings merged
 * in groups of c, e_c = (Σ_{i∈group} e_i) / √n with n the real tokens of the group ("-MP"
 * ablation: the mean). The chain is [###, r_1 … r_n]: `###` sits alone in its own group (its
 * compressed embedding is embed(###)), the reasoning tokens fill groups of c and the last group
 * may be partial (scaled by 1/√n_real) — the released code's alignment, said in words in
 * docs/method-reference.md §5. Letters: B batch, S source tokens, U input positions, K groups, C width.
 */
import * as tf from '@tensorflow/tfjs-core';
import type { Pooling } from './config.js';

/** One input position: a pooled group of source tokens (a raw token is a group of one), or a given vector. */
export type Unit = { members: number[] } | { vector: Float32Array };

/** A row: its source token ids and its input positions. */
export interface RowLayout {
  source: number[];
  units: Unit[];
  /** The speed c its prompt names (an arm with `speedVector` adds that speed's vector at the opening ###). */
  speed?: number;
}

/**
 * Groups of the chain [###, r_1 … r_n] at speed c, as indices into the chain (0 is ###):
 * [[0], [1 … c], [c+1 … 2c], …], the last group holding the n mod c left-over tokens.
 */
export function chainGroups(n: number, c: number): number[][] {
  if (!Number.isInteger(c) || c < 1) throw new Error(`chainGroups: speed c must be an integer ≥ 1, got ${c}`);
  if (!Number.isInteger(n) || n < 0) throw new Error(`chainGroups: chain length must be an integer ≥ 0, got ${n}`);
  const groups: number[][] = [[0]];
  for (let start = 1; start <= n; start += c) {
    groups.push(Array.from({ length: Math.min(c, n - start + 1) }, (_, i) => start + i));
  }
  return groups;
}

/** Weight of each member of a group of n real tokens: 1/√n (scaled sum) or 1/n (mean). */
export function poolingWeight(n: number, pooling: Pooling): number {
  return pooling === 'mean' ? 1 / n : 1 / Math.sqrt(n);
}

/**
 * The merge weights [B, U, S] (row-major) of a batch: position u of row b is Σ w·source[j] over
 * its members j. Vector units and padding positions get zero rows.
 */
export function mergeWeights(rows: RowLayout[], pooling: Pooling, U: number, S: number): Float32Array {
  const w = new Float32Array(rows.length * U * S);
  rows.forEach((row, b) => {
    row.units.forEach((unit, u) => {
      if (!('members' in unit)) return;
      const weight = poolingWeight(unit.members.length, pooling);
      for (const j of unit.members) {
        if (j < 0 || j >= row.source.length)
          throw new Error(`mergeWeights: row ${b} unit ${u} refers to source token ${j} of ${row.source.length}`);
        w[(b * U + u) * S + j] = weight;
      }
    });
  });
  return w;
}

/**
 * Input embeddings of a batch from its source-token embeddings: embeds [B, S, C] → [B, U, C],
 * U = the longest row's unit count, or `width` when given (shorter rows padded with zero vectors
 * at the right).
 */
export function mergeEmbeddings(embeds: tf.Tensor3D, rows: RowLayout[], pooling: Pooling, width?: number): tf.Tensor3D {
  const [B, S, C] = embeds.shape;
  if (rows.length !== B) throw new Error(`mergeEmbeddings: ${rows.length} row layouts for a batch of ${B}`);
  const longest = Math.max(...rows.map((r) => r.units.length));
  if (width !== undefined && !(Number.isInteger(width) && width >= longest))
    throw new Error(`mergeEmbeddings: width must be an integer ≥ the longest row's ${longest} units, got ${width}`);
  const U = width ?? longest;
  return tf.tidy(() => {
    const merge = tf.tensor3d(mergeWeights(rows, pooling, U, S), [B, U, S]); // [B, U, S]
    const pooled = tf.matMul(merge, embeds); // [B, U, C]
    const vectors = new Float32Array(B * U * C);
    let any = false;
    rows.forEach((row, b) =>
      row.units.forEach((unit, u) => {
        if (!('vector' in unit)) return;
        if (unit.vector.length !== C)
          throw new Error(
            `mergeEmbeddings: row ${b} unit ${u} has a vector of ${unit.vector.length} values, expected ${C}`,
          );
        vectors.set(unit.vector, (b * U + u) * C);
        any = true;
      }),
    );
    return (any ? tf.add(pooled, tf.tensor3d(vectors, [B, U, C])) : pooled) as tf.Tensor3D;
  });
}

/** Compress one chain per row at speed c: embeds [B, n+1, C] of [###, r_1 … r_n] → [B, K, C]. */
export function compressChain(embeds: tf.Tensor3D, c: number, pooling: Pooling): tf.Tensor3D {
  const [B, S] = embeds.shape;
  const groups = chainGroups(S - 1, c);
  const rows = Array.from({ length: B }, () => ({
    source: new Array<number>(S).fill(0),
    units: groups.map((members) => ({ members })),
  }));
  return mergeEmbeddings(embeds, rows, pooling);
}

/** Source ids [B, S] (right-padded with padId) of a batch of row layouts. */
export function sourceIds(rows: RowLayout[], padId: number): tf.Tensor2D {
  const S = Math.max(...rows.map((r) => r.source.length));
  const ids = new Int32Array(rows.length * S).fill(padId);
  rows.forEach((r, b) => ids.set(r.source, b * S));
  return tf.tensor2d(ids, [rows.length, S], 'int32');
}
