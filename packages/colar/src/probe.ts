/**
 * The exposure probe of a trained CoLaR model — a diagnostic of ours, not in the paper: how the
 * model does at one speed c on the true compressed chains (teacher-forced), on its own latents
 * one step ahead (every reasoning group self-fed, self-feed.ts), and decoding alone
 * (free-running, greedy). A model good on the first and lost on the third was never trained on
 * what it feeds itself (exposure bias). Per reasoning position (the opening ### up to the
 * last group but one, each predicting the next group):
 *   latent error   ‖μ·s − e‖ / ‖e‖ of the head's mean μ (times the embedding scale s) against
 *                  the true next compressed embedding e, over all positions and at the first
 *                  (the opening ###, predicting the chain's first group: the first latent decoded);
 *   nearest token  (c = 1 only) how often μ·s is nearest, in the tied embedding table, to the true next token;
 *   p(###) early   the LM head's probability of the stop before the chain's end (a sampled
 *                  stop's chance to end the chain there);
 * and at the last group, p(###) at the end (its chance to stop where the chain ends). Whether the
 * model reads the speed: how far the head's first latent moves when only the prompt's speed changes
 * (c against another speed), beside how far the true first group moves. At c = 1
 * the first questions' free-running chains are also read back as the nearest token of each latent
 * fed, beside their gold chains, to show what the model writes when it decodes alone.
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
  /** The latent error at the opening ### alone (the first group's latent, the one decoding starts from). */
  firstLatentError: number;
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
  freeRunning: { stopped: number; meanLatents: number; readouts: ChainReadout[] };
  /** The first latent under the prompt's speed c against speed `other` (null when maxCompressionFactor is 1). */
  speedShift: SpeedShift | null;
}

/** Mean over questions of ‖x_c − x_other‖ / ‖x_c‖ for the head's first latent and for the true first group. */
export interface SpeedShift {
  other: number;
  head: number;
  gold: number;
}

/** One question's chain at c = 1: the gold token ids and, per latent fed, the nearest token's id. */
export interface ChainReadout {
  gold: number[];
  read: number[];
}

const BATCH = 16;
/** Free-running chains read back as tokens (the first questions', at c = 1 only). */
const READOUTS = 3;

/** The tied embedding table [V, C]; call inside tf.tidy. */
function embeddingTable(s: ColarState): tf.Tensor2D {
  const ids = tf.expandDims(tf.range(0, s.tokenizer.size, 1, 'int32'), 0) as tf.Tensor2D; // [1, V]
  return tf.squeeze(s.lm.embed(ids), [0]) as tf.Tensor2D; // [V, C]
}

/** Ids of the nearest table rows to x [N, C] (‖x − E_t‖² ranked as −2x·E_t + ‖E_t‖²); call inside tf.tidy. */
function nearestIds(x: tf.Tensor2D, table: tf.Tensor2D): tf.Tensor1D {
  const score = tf.sub(tf.mul(tf.matMul(x, table, false, true), 2), tf.sum(tf.square(table), -1)); // [N, V]
  return tf.argMax(score, -1) as tf.Tensor1D; // [N]
}

/** The nearest token of each vector fed (embedding space). */
async function nearestTokens(s: ColarState, fed: Float32Array[]): Promise<number[]> {
  if (fed.length === 0) return [];
  const C = fed[0].length;
  const ids = tf.tidy(() => {
    const x = tf.tensor2d(Float32Array.from(fed.flatMap((v) => Array.from(v))), [fed.length, C]); // [N, C]
    return nearestIds(x, embeddingTable(s));
  });
  try {
    return Array.from(await ids.data());
  } finally {
    ids.dispose();
  }
}

interface Sums {
  error: number;
  first: number;
  nearest: number;
  positions: number;
  early: number;
  end: number;
}

const zeroSums = (): Sums => ({ error: 0, first: 0, nearest: 0, positions: 0, early: 0, end: 0 });

/** Per row, the head's first latent (mean × scale at the opening ###) and the true first group: [B][C] each. */
async function firstLatents(s: ColarState, rows: SftRow[]): Promise<{ head: Float32Array[]; gold: Float32Array[] }> {
  const prefixes = rows.map((r) => ({ ...r.layout, units: r.layout.units.slice(0, r.chainStart + 2) }));
  const packed = tf.tidy(() => {
    const U = Math.max(...prefixes.map((l) => l.units.length)) - 1;
    const out = unitsForward(s, inputsOf(prefixes), s.config.pooling, U); // hidden [B, U, C]
    const next = nextInputs(s, prefixes, s.config.pooling, U); // [B, U, C]
    const mean = tf.mul(headForward(s.head, out.hidden).mean, s.embStd); // [B, U, C]
    const at = tf.tensor1d(
      rows.map((r, b) => b * U + r.chainStart),
      'int32',
    ); // [B] each row's opening ###
    const C = mean.shape[2]!;
    return tf.stack([tf.gather(tf.reshape(mean, [-1, C]), at), tf.gather(tf.reshape(next, [-1, C]), at)]); // [2, B, C]
  });
  let flat: Float32Array;
  try {
    flat = (await packed.data()) as Float32Array;
  } finally {
    packed.dispose();
  }
  const C = flat.length / (2 * rows.length);
  const row = (k: number, b: number) => flat.slice((k * rows.length + b) * C, (k * rows.length + b + 1) * C);
  return { head: rows.map((_, b) => row(0, b)), gold: rows.map((_, b) => row(1, b)) };
}

/** Σ over rows of ‖x_b − y_b‖ / ‖x_b‖. */
function relativeShift(x: Float32Array[], y: Float32Array[]): number {
  let sum = 0;
  x.forEach((v, b) => {
    let d = 0;
    let n = 0;
    v.forEach((e, j) => {
      d += (e - y[b][j]) ** 2;
      n += e * e;
    });
    sum += Math.sqrt(d) / Math.max(Math.sqrt(n), 1e-12);
  });
  return sum;
}

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
    const flatMean = tf.reshape(mean, [-1, mean.shape[2]!]) as tf.Tensor2D; // [B·U, C]
    const nearest = tf.cast(tf.reshape(nearestIds(flatMean, embeddingTable(s)), error.shape), 'float32'); // [B, U]
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
    sums.first += at(0, b, r.chainStart);
    sums.end += at(1, b, r.chainEnd);
  });
  return sums;
}

function summary(t: Sums, questions: number, c: number): ProbeInputs {
  const per = (x: number) => x / Math.max(1, t.positions);
  return {
    latentError: per(t.error),
    firstLatentError: t.first / questions,
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
  const readouts: ChainReadout[] = [];
  const maxC = s.config.maxCompressionFactor;
  const other = maxC > 1 ? (c === 1 ? maxC : 1) : null;
  const shift = { head: 0, gold: 0 };
  const add = (a: Sums, b: Sums) => (Object.keys(a) as (keyof Sums)[]).forEach((k) => (a[k] += b[k]));
  for (let i = 0; i < examples.length; i += BATCH) {
    const part = examples.slice(i, i + BATCH);
    const rows = sftRows(s, part, c, rng.fork(`rows${i}`));
    add(teacher, await measure(s, rows, undefined, c));
    if (other !== null) {
      const here = await firstLatents(s, rows);
      const there = await firstLatents(s, sftRows(s, part, other, rng.fork(`other${i}`)));
      shift.head += relativeShift(here.head, there.head);
      shift.gold += relativeShift(here.gold, there.gold);
    }
    add(self, await measure(s, rows, await selfFedInputs(s, rows, 1, rng.fork(`fed${i}`), true), c));
    const decoded = await rollout(
      s,
      part.map((ex) => promptIds(s.tokenizer, ex, c, s.config.speedPrompt)),
      {
        speed: c,
        decoding: 'greedy',
        temperature: 0,
        topP: 1,
        maxNewTokens: o.maxNewTokens,
        rng: rng.fork(`decode${i}`),
      },
    );
    for (const [b, d] of decoded.entries()) {
      if (d.stopSampled) stopped += 1;
      latents += d.latents.length;
      if (c === 1 && readouts.length < READOUTS) {
        const r = rows[b];
        const groups = r.layout.units.slice(r.chainStart + 1, r.chainEnd + 1) as { members: number[] }[];
        const gold = groups.map((u) => r.layout.source[u.members[0]]); // at c = 1 a group is one token
        readouts.push({ gold, read: await nearestTokens(s, d.fed) });
      }
    }
  }
  const n = examples.length;
  return {
    speed: c,
    questions: n,
    groups: teacher.positions / n, // every reasoning position predicts one group
    teacherForced: summary(teacher, n, c),
    selfFed: summary(self, n, c),
    freeRunning: { stopped: stopped / n, meanLatents: latents / n, readouts },
    speedShift: other === null ? null : { other, head: shift.head / n, gold: shift.gold / n },
  };
}
