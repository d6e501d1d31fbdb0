/**
 * An arm's own settings over its experiment's: `"lm"`, `"data"` and `"train"` in an arm of an
 * experiment config. Each keeps only the keys the arm sets, checked as part of the experiment-level
 * settings; `armData` and `armTrain` give what the arm runs with.
 */
import { parseConfig, type OptimConfig } from '@telepath/core';
import { parseData, type LabTaskName } from './data.js';
import type { Arm, ExperimentConfig, LmSettings, TrainSettings } from './experiment.js';

/** The training settings an arm may set for itself: any of the experiment's, optimiser keys one by one. */
export type ArmTrain = Partial<Omit<TrainSettings, 'optim'>> & { optim?: Partial<OptimConfig> };

/** An arm's LM overrides: known keys only, each the type of the experiment-level setting. */
export function armLm(raw: unknown, defaults: LmSettings, where: string): Partial<LmSettings> {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    throw new Error(`${where}: expected an object of LM settings (${Object.keys(defaults).join(', ')})`);
  const full = parseConfig(defaults, raw, where);
  if ('pretrained' in raw)
    throw new Error(`${where}: "pretrained" is set for the whole experiment (its "lm"), not per arm`);
  const lm = Object.fromEntries(Object.keys(raw).map((k) => [k, full[k as keyof LmSettings]])) as Partial<LmSettings>;
  for (const k of ['layers', 'heads', 'width'] as const) {
    if (lm[k] !== undefined && (!Number.isInteger(lm[k]) || lm[k]! <= 0))
      throw new Error(`${where}: ${k} must be a positive integer, got ${lm[k]}`);
  }
  return lm;
}

/** An arm's training overrides: known keys only, the merged settings checked by `checkRanges` (the experiment's own checks). */
export function armTrainOverrides(
  base: TrainSettings,
  raw: unknown,
  where: string,
  checkRanges: (train: TrainSettings) => void,
): ArmTrain {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    throw new Error(`${where}: expected an object of training settings (${Object.keys(base).join(', ')})`);
  const own = raw as ArmTrain;
  const full = parseConfig(base, own, where);
  const train = effectiveTrain(base, own);
  checkRanges(train);
  if (!Number.isInteger(full.batchSize) || full.batchSize <= 0)
    throw new Error(`${where}: batchSize must be a positive integer, got ${full.batchSize}`);
  const picked = Object.fromEntries(Object.keys(own).map((k) => [k, full[k as keyof TrainSettings]])) as ArmTrain;
  if (own.optim)
    picked.optim = Object.fromEntries(Object.keys(own.optim).map((k) => [k, full.optim[k as keyof OptimConfig]]));
  return picked;
}

/** The training settings an arm runs with: the experiment's, with the arm's own over them. */
export function effectiveTrain(base: TrainSettings, own: ArmTrain | undefined): TrainSettings {
  return own ? { ...base, ...own, optim: { ...base.optim, ...own.optim } } : base;
}

/** The training settings of `arm` in `exp`. */
export const armTrain = (exp: Pick<ExperimentConfig, 'train'>, arm: Pick<Arm, 'train'>) =>
  effectiveTrain(exp.train, arm.train);

/** An arm's data overrides: the keys it sets, checked as part of the experiment's data. */
export function armDataOverrides(
  task: LabTaskName,
  data: object,
  raw: unknown,
  where: string,
): Record<string, unknown> {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    throw new Error(`${where} data: expected an object of data settings (${Object.keys(data).join(', ')})`);
  const full = parseData(task, { ...data, ...raw }, where) as Record<string, unknown>;
  return Object.fromEntries(Object.keys(raw).map((k) => [k, full[k]]));
}

/** The data an arm trains and is tested on: the experiment's, with the arm's own settings over it. */
export function armData(exp: Pick<ExperimentConfig, 'data'>, arm: Pick<Arm, 'data'>): object {
  return arm.data ? { ...exp.data, ...arm.data } : exp.data;
}
