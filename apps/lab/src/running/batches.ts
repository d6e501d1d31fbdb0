/** The training batch of a step, drawn with that step's Rng so a resumed run sees the same batches. */
import type { Example, Rng } from '@telepath/core';
import type { TaskData } from '../experiment/data.js';

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
