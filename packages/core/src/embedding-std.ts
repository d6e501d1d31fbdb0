/**
 * The spread of an LM's token-embedding table, the scale latent methods put their latent vectors
 * at: CoLaR divides its latent targets by it and multiplies its latents by it (arXiv 2505.16552,
 * the released code's MODEL_EMB_STD), the coprocessor rescales its latent embeddings and draws its
 * soft tokens with it. Measured once when a method is initialised.
 */
import * as tf from '@tensorflow/tfjs-core';
import type { TinyLm } from './tiny-lm.js';

/** Std of every entry of `lm`'s token-embedding table `wte`, as a scalar tensor (no read back; the caller owns it). */
export function embeddingStd(lm: TinyLm): tf.Scalar {
  const wte = lm.params.get('wte');
  if (!wte) throw new Error('embeddingStd: the LM has no token-embedding table "wte"');
  return tf.tidy(() => tf.sqrt(tf.moments(wte).variance) as tf.Scalar);
}
