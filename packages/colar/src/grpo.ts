/**
 * CoLaR's RL phase (arXiv 2505.16552; mechanics of the released code in docs/method-reference.md §5): GRPO
 * with G rollouts per question (stochastic latents and answers), reward 1 for a correct answer,
 * advantage A = (r − mean_G)/(std_G + 1e-8), no reference model, no KL, no entropy bonus; PPO
 * clipping −min(ρA, clip(ρ, 1−ε, 1+ε)A), ρ = exp(log π − log π_old), on two streams: the
 * Gaussian log-density of each latent (mean over C: one log-prob per latent) and the closing
 * ### plus the answer tokens. With averagePerToken each sequence's loss is the mean over its
 * latents plus the mean over its tokens (ā = ±1/L: the pressure that shortens chains);
 * without, the masked sum ÷ sumNormaliser. Old log-probs are fixed right after the rollouts;
 * the buffer is then consumed in minibatches, one optimizer step each (so later minibatches
 * are off-policy and the clip matters). The rollouts, rewards, advantages and old log-probs are
 * made by `prepareRl` before the gradient tape (core's train awaits it; its reads are
 * asynchronous), and `rlLoss` consumes the buffer. Letters: N rollouts, K latents, M text tokens, U, C.
 */
import * as tf from '@tensorflow/tfjs-core';
import { answerFromIds, type Example, type Rng } from '@telepath/core';
import { rollout } from './generate.js';
import { promptIds, rolloutLayout, type RolloutRow } from './layout.js';
import { gaussianLogDensity, headForward } from './latent-head.js';
import { unitsForward } from './model.js';
import type { ColarState } from './state.js';

export interface BufferedRollout {
  row: RolloutRow;
  advantage: number;
  oldLatent: number[]; // [K]
  oldText: number[]; // [M]
}

/** Group-normalised advantages: (r − mean)/(std + 1e-8) within consecutive groups of G (sample std, n − 1). */
export function groupAdvantages(rewards: number[], G: number): number[] {
  if (rewards.length % G !== 0)
    throw new Error(`groupAdvantages: ${rewards.length} rewards do not split into groups of ${G}`);
  const out: number[] = [];
  for (let g = 0; g < rewards.length; g += G) {
    const r = rewards.slice(g, g + G);
    const mean = r.reduce((a, b) => a + b, 0) / G;
    const std = Math.sqrt(r.reduce((a, b) => a + (b - mean) ** 2, 0) / (G - 1)); // chosen: torch's unbiased std
    for (const x of r) out.push((x - mean) / (std + 1e-8));
  }
  return out;
}

/** Groups of G whose rewards differ, i.e. whose advantages are not all zero (the only ones that move the policy). */
export function groupsWithSignal(rewards: number[], G: number): number {
  let n = 0;
  for (let g = 0; g < rewards.length; g += G) if (new Set(rewards.slice(g, g + G)).size > 1) n += 1;
  return n;
}

/** PPO-clip loss per element: −min(ρ·A, clip(ρ, 1−ε, 1+ε)·A), ρ = exp(logp − oldLogp). Same shapes in and out. */
export function ppoClipLoss(logp: tf.Tensor, oldLogp: tf.Tensor, adv: tf.Tensor, eps: number): tf.Tensor {
  return tf.tidy(() => {
    const ratio = tf.exp(tf.sub(logp, oldLogp));
    const unclipped = tf.mul(ratio, adv);
    const clipped = tf.mul(tf.clipByValue(ratio, 1 - eps, 1 + eps), adv);
    return tf.neg(tf.minimum(unclipped, clipped));
  });
}

export interface PolicyLogProbs {
  latent: tf.Tensor2D; // [N, K] log-density of each latent (mean over C)
  latentMask: tf.Tensor2D; // [N, K]
  text: tf.Tensor2D; // [N, M] log-prob of the closing ### and each answer token
  textMask: tf.Tensor2D; // [N, M]
}

/** Log-probs of rollouts under the current policy, teacher-forced in one forward pass. */
export function policyLogProbs(s: ColarState, rows: RolloutRow[]): PolicyLogProbs {
  const N = rows.length;
  const K = Math.max(1, ...rows.map((r) => r.latents.length));
  const M = Math.max(...rows.map((r) => 1 + r.answer.length));
  return tf.tidy(() => {
    const layouts = rows.map((r) => rolloutLayout(s.tokenizer, r));
    const out = unitsForward(s, layouts, 'scaled-sum'); // logits [N, U, V], hidden [N, U, C]
    const [, U, C] = out.hidden.shape;
    const V = out.logits.shape[2];
    // Predicting positions: latent k comes from position p + k − 1 (p = prompt length), text token j from p + K_row − 1 + j.
    const latIdx = new Int32Array(N * K);
    const latMask = new Float32Array(N * K);
    const z = new Float32Array(N * K * C);
    const txtIdx = new Int32Array(N * M);
    const txtMask = new Float32Array(N * M);
    const txtIds = new Int32Array(N * M);
    rows.forEach((r, n) => {
      const p = r.prompt.length;
      r.latents.forEach((zk, k) => {
        latIdx[n * K + k] = n * U + p + k - 1;
        latMask[n * K + k] = 1;
        z.set(zk, (n * K + k) * C);
      });
      const text = [s.tokenizer.sepId, ...r.answer];
      text.forEach((id, j) => {
        txtIdx[n * M + j] = n * U + p + r.latents.length - 1 + j;
        txtIds[n * M + j] = id;
        txtMask[n * M + j] = j === 0 && !r.stopSampled ? 0 : 1; // a forced stop was not sampled
      });
    });
    const hFlat = tf.reshape(out.hidden, [N * U, C]); // [NU, C]
    const head = headForward(s.head, tf.reshape(tf.gather(hFlat, tf.tensor1d(latIdx, 'int32')), [N, K, C]));
    const latent = gaussianLogDensity(
      tf.tensor3d(z, [N, K, C]),
      head.mean,
      head.logStd,
      s.config.latentTemperature,
    ) as tf.Tensor2D; // [N, K]
    const lFlat = tf.gather(tf.reshape(out.logits, [N * U, V]), tf.tensor1d(txtIdx, 'int32')); // [NM, V]
    const picked = tf.sum(tf.mul(lFlat, tf.oneHot(tf.tensor1d(txtIds, 'int32'), V)), -1);
    const text = tf.reshape(tf.sub(picked, tf.logSumExp(lFlat, -1)), [N, M]) as tf.Tensor2D; // [N, M]
    return { latent, latentMask: tf.tensor2d(latMask, [N, K]), text, textMask: tf.tensor2d(txtMask, [N, M]) };
  });
}

/** Roll out G answers for each question, reward them, fix the old log-probs (one read), and queue them shuffled. */
export async function refillBuffer(s: ColarState, questions: Example[], rng: Rng): Promise<void> {
  const cfg = s.config;
  if (!s.reward)
    throw new Error('colar: the rl phase needs a reward (MethodContext.reward, given by the lab from the task)');
  const reward = s.reward;
  const G = cfg.groupSize;
  const examples = questions.flatMap((q) => new Array<Example>(G).fill(q));
  const rows = await rollout(
    s,
    examples.map((ex) => promptIds(s.tokenizer, ex, cfg.compressionFactor, cfg.speedPrompt)),
    {
      speed: cfg.compressionFactor,
      decoding: 'sample',
      temperature: 1,
      topP: 1,
      maxNewTokens: cfg.maxNewTokens,
      rng: rng.fork('rollout'),
    },
  );
  const rewards = rows.map((r, i) =>
    reward(examples[i], answerFromIds(s.tokenizer, [s.tokenizer.sepId, ...r.answer]).answer),
  );
  const adv = groupAdvantages(rewards, G);
  const lp = policyLogProbs(s, rows);
  const [K, M] = [lp.latent.shape[1], lp.text.shape[1]];
  const packed = tf.tidy(() => tf.concat([tf.reshape(lp.latent, [-1]), tf.reshape(lp.text, [-1])])); // [N·K + N·M]
  tf.dispose(Object.values(lp));
  let old: Float32Array;
  try {
    old = (await packed.data()) as Float32Array;
  } finally {
    packed.dispose();
  }
  const oldText = old.subarray(rows.length * K);
  const items = rows.map((row, i) => ({
    row,
    advantage: adv[i],
    oldLatent: Array.from(old.subarray(i * K, i * K + row.latents.length)),
    oldText: Array.from(oldText.subarray(i * M, i * M + 1 + row.answer.length)),
  }));
  s.buffer.push(...rng.fork('shuffle').shuffle(items));
  s.rlStats = {
    rollouts: s.rlStats.rollouts + rows.length,
    groups: s.rlStats.groups + questions.length,
    groupsWithSignal: s.rlStats.groupsWithSignal + groupsWithSignal(rewards, G),
  };
}

/** The clipped policy loss of a minibatch of buffered rollouts. */
export function grpoLoss(s: ColarState, items: BufferedRollout[]): tf.Scalar {
  const cfg = s.config;
  return tf.tidy(() => {
    const lp = policyLogProbs(
      s,
      items.map((it) => it.row),
    );
    const [N, K] = lp.latent.shape;
    const M = lp.text.shape[1];
    const pad = (xs: number[], n: number) => [...xs, ...new Array<number>(n - xs.length).fill(0)];
    const oldLat = tf.tensor2d(
      items.flatMap((it) => pad(it.oldLatent, K)),
      [N, K],
    );
    const oldTxt = tf.tensor2d(
      items.flatMap((it) => pad(it.oldText, M)),
      [N, M],
    );
    const adv = tf.tensor2d(
      items.map((it) => it.advantage),
      [N, 1],
    );
    const latLoss = ppoClipLoss(lp.latent, oldLat, adv, cfg.clipEpsilon) as tf.Tensor2D; // [N, K]
    const txtLoss = ppoClipLoss(lp.text, oldTxt, adv, cfg.clipEpsilon) as tf.Tensor2D; // [N, M]
    return tf.mean(
      sequenceLosses(latLoss, lp.latentMask, txtLoss, lp.textMask, cfg.averagePerToken ? 'mean' : cfg.sumNormaliser),
    ) as tf.Scalar;
  });
}

/**
 * Per-sequence loss [N] from per-position losses: 'mean' = masked mean over the latents plus
 * masked mean over the text tokens (each position weighs 1/L of its sequence); a number = the
 * masked sum of both streams divided by it.
 */
export function sequenceLosses(
  lat: tf.Tensor2D,
  latMask: tf.Tensor2D,
  txt: tf.Tensor2D,
  txtMask: tf.Tensor2D,
  reduce: 'mean' | number,
): tf.Tensor1D {
  return tf.tidy(() => {
    const latSum = tf.sum(tf.mul(lat, latMask), -1); // [N]
    const txtSum = tf.sum(tf.mul(txt, txtMask), -1); // [N]
    if (reduce !== 'mean') return tf.div(tf.add(latSum, txtSum), reduce) as tf.Tensor1D;
    return tf.add(
      tf.div(latSum, tf.maximum(tf.sum(latMask, -1), 1)),
      tf.div(txtSum, tf.maximum(tf.sum(txtMask, -1), 1)),
    ) as tf.Tensor1D;
  });
}

/** Before an RL step (outside the gradient tape): refill the buffer from the batch's first questions when it is empty. */
export async function prepareRl(s: ColarState, batch: Example[], rng: Rng): Promise<void> {
  if (s.buffer.length === 0) await refillBuffer(s, batch.slice(0, s.config.rolloutQuestions), rng);
}

/** One RL step: the clipped loss of the next minibatch of the buffer `prepareRl` filled. */
export function rlLoss(s: ColarState): tf.Scalar {
  if (s.buffer.length === 0)
    throw new Error(
      "colar: rl step with an empty rollout buffer; prepareRl (LatentMethod.prepare, awaited by core's train) fills it before the loss",
    );
  const items = s.buffer.splice(0, s.config.rlMinibatch);
  return grpoLoss(s, items);
}
