/**
 * A decoder's batch after its stopped rows left it (core `decode`, CoLaR's latent loop): the
 * tensors hold rows `held` (in order) of the batch's `of`. Every random draw is still made for
 * all `of` rows, and the held rows' share taken, so each row samples what it samples in the
 * whole batch.
 */
import * as tf from '@tensorflow/tfjs-core';
import type { Rng } from './rng.js';

export interface HeldRows {
  held: number[];
  of: number;
}

/**
 * `perRow` standard normals for each row: drawn for all `rows.of` rows and the held rows' kept
 * ([held.length · perRow]); without `rows`, `n` rows' worth drawn directly.
 */
export function normalsForRows(rng: Rng, perRow: number, n: number, rows?: HeldRows): Float32Array {
  if (!rows) return rng.normalArray(n * perRow);
  const all = rng.normalArray(rows.of * perRow);
  const out = new Float32Array(rows.held.length * perRow);
  rows.held.forEach((b, i) => out.set(all.subarray(b * perRow, (b + 1) * perRow), i * perRow));
  return out;
}

/** Where each of `rows` sits among `held` (the rows a tensor holds): [R] int32, for tf.gather. */
export function rowIndices(held: readonly number[], rows: readonly number[]): tf.Tensor1D {
  return tf.tensor1d(
    rows.map((b) => held.indexOf(b)),
    'int32',
  );
}
