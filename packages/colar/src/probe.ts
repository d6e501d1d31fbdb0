/**
 * The exposure probe of a trained CoLaR model — a diagnostic of ours, not in the paper: how the
 * model does at one speed c on the true compressed chains (teacher-forced), on its own latents
 * one step ahead (every reasoning group self-fed, self-feed.ts), and decoding alone
 * (free-running, greedy). A model good on the first and lost on the third was never trained on
 * what it feeds itself (exposure bias). Per reasoning position (the opening ### up to the
 * last group but one, each predicting the next group):
 *   latent error   ‖μ·s − e‖ / ‖e‖ of the head's mean μ (times the embedding scale s) against
 *                  the true next compressed embedding e;
 *   nearest token  (c = 1 only) how often μ·s is nearest, in the tied embedding table, to the true next token;
 *   p(###) early   the LM head's probability of the stop before the chain's end (a sampled
 *                  stop's chance to end the chain there);
 * and at the last group, p(###) at the end (its chance to stop where the chain ends).
 * Letters: B rows, U input positions, C width, V vocab.
 */
import * as tf from '@tensorflow/tfjs-core';
import type { Example, Rng } from '@telepath/core';
import { rollout } from './generate.js';
import { headForward } from './latent-head.js';
import { promptIds, type SftRow } from './layout.js';
import { sftRows } from './loss.js';
import { inputsOf, nextInputs, unitsForward } from './model.js';
import { selfFedInputs, withFedInputs, type FedInputs } from './self-feed.js';
import type { ColarState } from './state.js';

/** What the model does on one kind of inputs, over every question's reasoning positions. */
export interface ProbeInputs {
  latentError: number;
  /** null above c = 1 (a compressed group is no single token). */
  nearestToken: number | null;
  stopEarly: number;
  stopAtEnd: number;
}

export interface ExposureProbe {
  speed: number;
  questions: number;
  /** Mean reasoning groups per question (the true chain's length in latents at this speed). */
  groups: number;
  teacherForced: ProbeInputs;
  selfFed: ProbeInputs;
  /** Greedy decoding alone: the share of questions whose chain reaches the stop before the latent cap, and its mean latents. */
  freeRunning: { stopped: number; meanLatents: number };
}

const BATCH = 16;

interface Sums {
  error: number;
  nearest: number;
  positions: number;
  early: number;
  end: number;
}

const zeroSums = (): Sums => ({ error: 0, nearest: 0, positions: 0, early: 0, end: 0 });

/** One batch's sums on `rows` read with `fed` in place of their chosen units (none: teacher-forced). */
async function measure(s: ColarState, rows: SftRow[], fed: FedInputs | undefined, c: number): Promise<Sums> {
  const gold = rows.map((r) => r.layout);
  const inputs = inputsOf(withFedInputs(rows, fed));
  const U = Math.max(...inputs.map((l) => l.units.length));
  const packed = tf.tidy(() => {
    const out = unitsForward(s, inputs, s.config.pooling); // logits [B, U, V], hidden [B, U, C]
    const next = nextInputs(s, gold, s.config.pooling, U); // [B, U, C] the true next input
    const mean = tf.mul(headForward(s.head, out.hidden).mean, s.embStd); // [B, U, C]
    const error = tf.div(
      tf.norm(tf.sub(mean, next), 'euclidean', -1),
      tf.maximum(tf.norm(next, 'euclidean', -1), 1e-12),
    ); // [B, U]
    const stop = tf.gather(tf.softmax(out.logits), s.tokenizer.sepId, 2); // [B, U]
    const table = tf.squeeze(
      s.lm.embed(tf.expandDims(tf.range(0, s.tokenizer.size, 1, 'int32'), 0) as tf.Tensor2D),
      [0],
    ) as tf.Tensor2D; // [V, C]
    const score = tf.sub(
      tf.mul(tf.matMul(tf.reshape(mean, [-1, mean.shape[2]!]), table, false, true), 2),
      tf.sum(tf.square(table), -1),
    ); // [B·U, V] −‖μs − E_t‖² + ‖μs‖²
    const nearest = tf.cast(tf.reshape(tf.argMax(score, -1), error.shape), 'float32'); // [B, U]
    return tf.stack([error, stop, nearest]); // [3, B, U]
  });
  let flat: Float32Array;
  try {
    flat = (await packed.data()) as Float32Array;
  } finally {
    packed.dispose();
  }
  const B = rows.length;
  const at = (k: number, b: number, i: number) => flat[(k * B + b) * U + i];
  const sums = zeroSums();
  rows.forEach((r, b) => {
    for (let i = r.chainStart; i < r.chainEnd; i++) {
      sums.positions += 1;
      sums.error += at(0, b, i);
      sums.early += at(1, b, i);
      if (c === 1 && at(2, b, i) === r.layout.source[(r.layout.units[i + 1] as { members: number[] }).members[0]])
        sums.nearest += 1;
    }
    sums.end += at(1, b, r.chainEnd);
  });
  return sums;
}

function summary(t: Sums, questions: number, c: number): ProbeInputs {
  const per = (x: number) => x / Math.max(1, t.positions);
  return {
    latentError: per(t.error),
    nearestToken: c === 1 ? per(t.nearest) : null,
    stopEarly: per(t.early),
    stopAtEnd: t.end / questions,
  };
}

export interface ProbeOptions {
  /** The speed c probed. */
  speed: number;
  /** Answer tokens the decoding leaves room for (they bound the latent cap, as in evaluation). */
  maxNewTokens: number;
  /** Draws the rows' label tokens (which no measure reads); the decoding is greedy. */
  rng: Rng;
}

/** The probe on `examples` (questions with their gold chains). */
export async function exposureProbe(s: ColarState, examples: Example[], o: ProbeOptions): Promise<ExposureProbe> {
  const c = o.speed;
  const rng = o.rng;
  if (examples.length === 0) throw new Error('colar exposure probe: no questions to probe');
  const teacher = zeroSums();
  const self = zeroSums();
  let stopped = 0;
  let latents = 0;
  const add = (a: Sums, b: Sums) => (Object.keys(a) as (keyof Sums)[]).forEach((k) => (a[k] += b[k]));
  for (let i = 0; i < examples.length; i += BATCH) {
    const part = examples.slice(i, i + BATCH);
    const rows = sftRows(s, part, c, rng.fork(`rows${i}`));
    add(teacher, await measure(s, rows, undefined, c));
    add(self, await measure(s, rows, await selfFedInputs(s, rows, 1, rng.fork(`fed${i}`), true), c));
    const decoded = await rollout(
      s,
      part.map((ex) => promptIds(s.tokenizer, ex, c, s.config.speedPrompt)),
      { decoding: 'greedy', temperature: 0, topP: 1, maxNewTokens: o.maxNewTokens, rng: rng.fork(`decode${i}`) },
    );
    for (const d of decoded) {
      if (d.stopSampled) stopped += 1;
      latents += d.latents.length;
    }
  }
  const n = examples.length;
  return {
    speed: c,
    questions: n,
    groups: teacher.positions / n, // every reasoning position predicts one group
    teacherForced: summary(teacher, n, c),
    selfFed: summary(self, n, c),
    freeRunning: { stopped: stopped / n, meanLatents: latents / n },
  };
}
