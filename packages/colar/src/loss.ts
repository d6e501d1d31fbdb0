/**
 * CoLaR's SFT objective (arXiv 2505.16552): ce_weight · L_comp + latent_weight · L_latent
 * (+ entropy_weight · H), docs/method-reference.md §5.
 *   L_comp   = −1/(L_a + L_c) Σ log p([t_c, t_a]^i | [e_c, e_a]^{<i}, e_q): mean CE over the
 *              compressed chain (one random token per group) and the answer.
 *   L_latent = at every chain position (the opening ### included), the head's prediction of the
 *              next input embedding ÷ the embedding scale (the last one's target is embed(###)):
 *              soft-MSE = (μ + σε − e)² of one reparameterised sample (default), or the Gaussian
 *              NLL (e − μ)²/(2σ²) + log σ + ½ log 2π; mean over C, masked mean over positions.
 * Letters: B batch, U input positions, T predicting positions (U − 1, rounded up by paddedWidth), C width.
 */
import * as tf from '@tensorflow/tfjs-core';
import { maskedCrossEntropy, paddedWidth, type Example, type Rng } from '@telepath/core';
import { headForward } from './latent-head.js';
import { inputsOf, nextInputs, unitsForward } from './model.js';
import { sftRow, type SftRow } from './layout.js';
import { withFedInputs, type FedInputs } from './self-feed.js';
import type { ColarState } from './state.js';

const LOG_2PI = Math.log(2 * Math.PI);
const LOG_2PI_E = Math.log(2 * Math.PI * Math.E);

/** Identity whose gradient is zero (targets must not pull the embeddings they come from). */
export const stopGradient = tf.customGrad((...args: (tf.Tensor | tf.GradSaveFunc)[]) => {
  const x = args[0] as tf.Tensor;
  return { value: tf.clone(x), gradFunc: (dy: tf.Tensor) => tf.zerosLike(dy) };
}) as <T extends tf.Tensor>(x: T) => T;

/** Soft-MSE per position: mean over C of (μ + σ·ε − e)²; mean, logStd, eps, target [..., C] → [...]. */
export function softMse(mean: tf.Tensor, logStd: tf.Tensor, eps: tf.Tensor, target: tf.Tensor): tf.Tensor {
  return tf.tidy(() => tf.mean(tf.square(tf.sub(tf.add(mean, tf.mul(tf.exp(logStd), eps)), target)), -1));
}

/** Gaussian NLL per position: mean over C of (e − μ)²/(2σ²) + log σ + ½ log 2π. [..., C] → [...] */
export function gaussianNll(mean: tf.Tensor, logStd: tf.Tensor, target: tf.Tensor): tf.Tensor {
  return tf.tidy(() => {
    const scaled = tf.mul(tf.sub(target, mean), tf.exp(tf.neg(logStd)));
    return tf.mean(tf.add(tf.add(tf.mul(tf.square(scaled), 0.5), logStd), 0.5 * LOG_2PI), -1);
  });
}

/** Entropy per position of the diagonal Gaussian, mean over C of ½ log(2πe σ²). [..., C] → [...] */
export function gaussianEntropy(logStd: tf.Tensor): tf.Tensor {
  return tf.tidy(() => tf.mean(tf.add(logStd, 0.5 * LOG_2PI_E), -1));
}

function maskedMean(x: tf.Tensor, mask: tf.Tensor): tf.Scalar {
  return tf.tidy(() => tf.div(tf.sum(tf.mul(x, mask)), tf.maximum(tf.sum(mask), 1)) as tf.Scalar);
}

/** The speed of one SFT step: uniform over trainSpeeds, or over 1..maxCompressionFactor. */
export function drawSpeed(s: ColarState, rng: Rng): number {
  const c = s.config;
  return c.trainSpeeds.length ? rng.pick(c.trainSpeeds) : 1 + rng.int(c.maxCompressionFactor);
}

/** CE targets and the two masks [B, T] (T = U − 1) of a batch of SFT rows. */
function sftTargets(rows: SftRow[], padId: number, T: number) {
  const B = rows.length;
  const targets = new Int32Array(B * T).fill(padId);
  const ceMask = new Float32Array(B * T);
  const latentMask = new Float32Array(B * T);
  rows.forEach((r, b) => {
    for (let i = 0; i + 1 < r.layout.units.length; i++) {
      targets[b * T + i] = r.labels[i + 1];
      if (i >= r.chainStart - 1) ceMask[b * T + i] = 1; // the opening ###, the compressed chain, the answer
      if (i >= r.chainStart && i <= r.chainEnd) latentMask[b * T + i] = 1;
    }
  });
  return {
    targets: tf.tensor2d(targets, [B, T], 'int32'),
    ceMask: tf.tensor2d(ceMask, [B, T]),
    latentMask: tf.tensor2d(latentMask, [B, T]),
  };
}

/** The SFT rows of a batch at speed c; `rng` (the loss's) draws each group's label token. */
export function sftRows(s: ColarState, batch: Example[], c: number, rng: Rng): SftRow[] {
  const labelRng = rng.fork('labels');
  return batch.map((ex) => sftRow(s.tokenizer, ex, c, s.config.speedPrompt, labelRng));
}

/**
 * The SFT loss of a batch at speed c (one c for the whole batch); `rng` draws labels and ε.
 * `fed` (self-feed.ts, not in the paper): vectors read in place of chosen input units; the
 * targets are the true ones either way.
 */
export function sftLoss(s: ColarState, batch: Example[], c: number, rng: Rng, fed?: FedInputs): tf.Scalar {
  const cfg = s.config;
  const rows = sftRows(s, batch, c, rng);
  const U = Math.max(...rows.map((r) => r.layout.units.length));
  if (U > s.lm.config.contextLength)
    throw new Error(`colar: a sequence of ${U} positions exceeds the context length ${s.lm.config.contextLength}`);
  // T = U − 1 columns, rounded up with core's paddedWidth (masked), so batches come in few widths
  // and the native buffer pool reuses their buffers.
  const T = paddedWidth(U - 1, s.lm.config.contextLength);
  const B = rows.length;
  return tf.tidy(() => {
    const layouts = rows.map((r) => r.layout);
    // Inputs are units 0..U−2 (some self-fed when `fed` says so), latent targets the true units
    // 1..U−1 (the next input).
    const out = unitsForward(s, inputsOf(withFedInputs(rows, fed)), cfg.pooling, T); // logits [B, T, V], hidden [B, T, C]
    const next = nextInputs(s, layouts, cfg.pooling, T); // [B, T, C]
    const C = next.shape[2];
    const t = sftTargets(rows, s.tokenizer.padId, T);
    const ce = maskedCrossEntropy(out.logits, t.targets, t.ceMask);
    const head = headForward(s.head, out.hidden); // the LM head's input
    const target = tf.div(stopGradient(next), s.embStd); // [B, T, C] next input ÷ scale
    let perPos: tf.Tensor; // [B, T]
    if (cfg.latentLoss === 'nll') perPos = gaussianNll(head.mean, head.logStd, target);
    else {
      // ε drawn for the U − 1 real columns only, zero on the padding: the loss does not depend on the width.
      const real = U - 1;
      const eps =
        s.head.kind === 'gaussian'
          ? tf.pad(tf.tensor3d(rng.fork('eps').normalArray(B * real * C), [B, real, C]), [
              [0, 0],
              [0, T - real],
              [0, 0],
            ])
          : tf.zeros([B, T, C]);
      perPos = softMse(head.mean, head.logStd, eps, target);
    }
    let loss = tf.add(tf.mul(ce, cfg.ceWeight), tf.mul(maskedMean(perPos, t.latentMask), cfg.latentWeight));
    if (cfg.entropyWeight !== 0 && s.head.kind === 'gaussian')
      loss = tf.add(loss, tf.mul(maskedMean(gaussianEntropy(head.logStd), t.latentMask), cfg.entropyWeight));
    return loss as tf.Scalar;
  });
}
