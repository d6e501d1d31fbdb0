/**
 * The training batches of an arm: one stream per seed that every arm reads, whatever its method's
 * phases, so that a latent arm and its reference trained the same extra steps see the same
 * examples at every step (issue "The comparison again": the extra-steps control).
 */
import { createHash } from 'node:crypto';
import { Rng, type Example, type TrainStep } from '@telepath/core';
import type { TaskData } from '../experiment/data.js';

/** The phase whose rng paths name the stream: a single-phase arm's ('sft'), so its batches are unchanged. */
export const STREAM_PHASE = 'sft';

export interface StreamPosition {
  seed: number;
  /** The phase being trained and the steps of the arm's phases before it. */
  phase: string;
  phaseStart: number;
  batchSize: number;
}

/**
 * The batch of global step G = phaseStart + at.step (from 0), micro-batch m: drawn with the rng
 * Rng(seed)/train/sft/step/G/micro/m, the one core's train() hands a single-phase 'sft' arm at
 * step G. For that arm (its first phase, named 'sft') the step's own rng is used, so its loss sees
 * that rng after the draw, as it always has; later phases (Coconut's stages, CoLaR's GRPO after
 * its SFT) draw from a fresh rng of the same path and their loss gets its step rng untouched.
 */
export function streamBatch(data: Pick<TaskData, 'train' | 'trainBatch'>, p: StreamPosition, at: TrainStep): Example[] {
  const step = p.phaseStart + at.step;
  const rng =
    p.phase === STREAM_PHASE && p.phaseStart === 0
      ? at.rng
      : new Rng(p.seed).fork(`train/${STREAM_PHASE}`).fork(`step/${step}`).fork(`micro/${at.micro}`);
  return trainBatch(data, rng, step, p.batchSize);
}

/**
 * One phase's batches: `of(at)` for its loss and prepare, and `logged(step)`, the `<phase>/batch`
 * digest of a step just done (counted from 1, as the log counts) to write beside its loss.
 */
export function phaseBatches(data: Pick<TaskData, 'train' | 'trainBatch'>, p: StreamPosition) {
  const digests = new Map<number, number>(); // steps done → their first micro-batch's digest, until logged
  return {
    of(at: TrainStep): Example[] {
      const batch = streamBatch(data, p, at);
      if (at.micro === 0) digests.set(at.step + 1, batchDigest(batch));
      return batch;
    },
    logged(step: number): Record<string, number> {
      const digest = digests.get(step);
      digests.clear();
      return digest === undefined ? {} : { [`${p.phase}/batch`]: digest };
    },
  };
}

/** The step's training batch: the task's own stream where it has one, else drawn from `train`; both from the step's rng. */
export function trainBatch(
  data: Pick<TaskData, 'train' | 'trainBatch'>,
  rng: Rng,
  step: number,
  batchSize: number,
): Example[] {
  return data.trainBatch ? data.trainBatch(rng, step, batchSize) : sampleBatch(data.train, rng, batchSize);
}

/** A training batch drawn with the step's rng (so resumed runs see the same batches). */
export function sampleBatch(train: Example[], rng: Rng, batchSize: number): Example[] {
  return Array.from({ length: batchSize }, () => train[rng.int(train.length)]);
}

/** A 32-bit digest of a batch's example ids and questions, logged as `<phase>/batch` beside the loss. */
export function batchDigest(batch: Example[]): number {
  const h = createHash('sha256');
  for (const ex of batch) h.update(`${ex.id}\u0000${ex.question}\u0001`);
  return h.digest().readUInt32BE(0);
}
