/**
 * Controls for latent methods: evaluated beside the normal arm, they show whether the latents
 * carry information. Every latent method applies them through this one helper, to the latent
 * vectors it is about to hand on (input embeddings, injected cache entries, prefixes):
 *   none     the latents as produced
 *   zero     all zeros
 *   shuffle  latents of another example of the batch (a derangement when B > 1)
 *   random   Gaussian vectors with each latent's own norm
 * Letters: B batch, K latent positions, C width.
 */
import * as tf from '@tensorflow/tfjs-core';
import { normalsForRows, type HeldRows } from './held-rows.js';
import type { Rng } from './rng.js';

export type LatentControl = 'none' | 'zero' | 'shuffle' | 'random';
export const LATENT_CONTROLS: readonly LatentControl[] = ['none', 'zero', 'shuffle', 'random'];

/** A permutation of 0..n−1 with no fixed point (n ≥ 2); identity for n = 1. */
export function derangement(n: number, rng: Rng): number[] {
  if (n < 2) return [0];
  for (;;) {
    const p = rng.shuffle(Array.from({ length: n }, (_, i) => i));
    if (p.every((v, i) => v !== i)) return p;
  }
}

/**
 * Apply a control to latents z [B, K, C] (or [B, C]); `rng` drives shuffle and random. `rows`
 * (random only; a decoder whose stopped rows left the batch): z holds rows `held` of `of`; the
 * noise is drawn for all `of` rows and theirs taken, so each row gets what it gets in the whole batch.
 */
export function applyLatentControl<T extends tf.Tensor>(z: T, control: LatentControl, rng: Rng, rows?: HeldRows): T {
  if (!LATENT_CONTROLS.includes(control))
    throw new Error(`unknown latent control "${control}". Expected one of: ${LATENT_CONTROLS.join(', ')}`);
  return tf.tidy(() => {
    switch (control) {
      case 'none':
        return tf.clone(z);
      case 'zero':
        return tf.zerosLike(z);
      case 'shuffle': {
        if (rows)
          throw new Error('applyLatentControl: shuffle mixes the rows of the whole batch; it takes no held rows');
        const perm = tf.tensor1d(derangement(z.shape[0], rng), 'int32');
        return tf.gather(z, perm);
      }
      case 'random': {
        const drawn = normalsForRows(rng, z.size / z.shape[0], z.shape[0], rows);
        const noise = tf.tensor(drawn, z.shape); // same shape as z
        const norm = (t: tf.Tensor) => tf.sqrt(tf.sum(tf.mul(t, t), -1, true)); // [..., 1]
        return tf.mul(tf.div(noise, tf.maximum(norm(noise), 1e-12)), norm(z));
      }
    }
  }) as T;
}
