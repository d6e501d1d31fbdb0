/**
 * Self-fed SFT inputs — not in CoLaR's paper (arXiv 2505.16552), whose SFT always feeds the true
 * compressed embeddings. It is scheduled sampling (Bengio et al. 2015, arXiv 1506.03099) on the
 * latent chain: before the loss, one teacher-forced pass (outside the gradient tape) gives the
 * head's latent at every chain position, and each reasoning group's input is replaced, with
 * probability `selfFeedShare`, by the latent the head predicted for it from the true prefix
 * (sampled as inference samples it, times the embedding scale: what decoding would feed). The
 * targets stay the true next compressed embedding and tokens, so the model learns to go on from
 * its own slightly-wrong latents. Why: on ProsQA a CoLaR model that teacher-forces perfectly
 * (99.6 % of its head's latents nearest the right token, the stop at the chain's end with p ≈ 1)
 * derails from the second latent when it reads its own, and 93-95 % of its chains never stop
 * (docs/results/prosqa-methods.md, "Why CoLaR's chains do not stop on ProsQA").
 * One pass is one step ahead: the replaced inputs are predicted from true prefixes, not from
 * each other. Letters: B rows, U input positions, C width.
 */
import * as tf from '@tensorflow/tfjs-core';
import type { Example, Rng } from '@telepath/core';
import { sampleLatent, headForward } from './latent-head.js';
import { inputsOf, unitsForward } from './model.js';
import type { SftRow } from './layout.js';
import type { ColarState } from './state.js';

/** Per batch row: the input unit index → the vector fed there instead (embedding space, [C]). */
export type FedInputs = Map<number, Float32Array>[];

/** Self-fed inputs prepared for one SFT batch (consumed by the loss of the same batch). */
export interface PendingSelfFeed {
  exampleIds: string[];
  fed: FedInputs;
}

/**
 * The head's latent for each reasoning group of `rows` (inputs units 0..U−2, as the loss feeds
 * them), fed in place of the group with probability `share`; `rng` draws the latents (when
 * sampling) and the choice of groups; `greedy`: the head's mean (default: as the config decodes).
 * Owns and frees every tensor it makes.
 */
export async function selfFedInputs(
  s: ColarState,
  rows: SftRow[],
  share: number,
  rng: Rng,
  greedy = s.config.decoding === 'greedy',
): Promise<FedInputs> {
  const cfg = s.config;
  const inputs = inputsOf(rows.map((r) => r.layout));
  const x = tf.tidy(() => {
    const out = unitsForward(s, inputs, cfg.pooling); // hidden [B, U, C]
    const head = headForward(s.head, out.hidden);
    const z = sampleLatent(head, cfg.latentTemperature, rng.fork('latents'), greedy); // [B, U, C]
    return tf.mul(z, s.embStd) as tf.Tensor3D; // [B, U, C] what decoding would feed next
  });
  const [, U, C] = x.shape;
  let flat: Float32Array;
  try {
    flat = (await x.data()) as Float32Array;
  } finally {
    x.dispose();
  }
  const choose = rng.fork('groups');
  return rows.map((r, b) => {
    const fed = new Map<number, Float32Array>();
    // Reasoning groups only (after the opening ###, up to the last group): position u − 1 predicts unit u.
    for (let u = r.chainStart + 1; u <= r.chainEnd; u++)
      if (choose.float() < share) fed.set(u, flat.slice((b * U + u - 1) * C, (b * U + u) * C));
    return fed;
  });
}

/** The SFT rows with `fed` in place of their chosen units (none: the rows unchanged). */
export function withFedInputs(rows: SftRow[], fed: FedInputs | undefined): SftRow['layout'][] {
  return rows.map((r, b) => {
    const f = fed?.[b];
    if (!f || f.size === 0) return r.layout;
    return { ...r.layout, units: r.layout.units.map((unit, u) => (f.has(u) ? { vector: f.get(u)! } : unit)) };
  });
}

/** The pending inputs of `batch`, or a clear error when they were prepared for another batch or not at all. */
export function takePending(s: ColarState, batch: Example[]): FedInputs {
  const p = s.pendingSelfFeed;
  s.pendingSelfFeed = undefined;
  const ids = batch.map((ex) => ex.id);
  if (!p) throw new Error('colar: selfFeedShare > 0 needs the self-fed inputs from prepare() before each SFT loss');
  if (p.exampleIds.length !== ids.length || p.exampleIds.some((id, i) => id !== ids[i]))
    throw new Error('colar: the self-fed inputs were prepared for another batch than the SFT loss received');
  return p.fed;
}
