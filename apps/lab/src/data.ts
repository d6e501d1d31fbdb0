/**
 * Task data for an experiment: which examples train and which evaluate, per task, from the
 * shipped files or the seeded generators of @telepath/tasks. Each task has a typed data config
 * with defaults (unknown keys rejected) and reports the dataset hashes for env.json.
 */
import { checkNumber, parseConfig, type BuildOptions, type Example } from '@telepath/core';
import {
  COUNTDOWN_MAX_N,
  COUNTDOWN_MIN_N,
  countdownAllNumbersTask,
  countdownTask,
  examplesSha256,
  generateCountdown,
  generateProsqa,
  gsm8kTask,
  isCountdownSize,
  loadCountdownJsonl,
  loadGsm8k,
  loadProsqa,
  prosqaTask,
  type Task,
} from '@telepath/tasks';

export interface TaskData {
  task: Task;
  train: Example[];
  test: Example[];
  /** name → sha256 of the examples (files are also checked by the loaders). */
  hashes: Record<string, string>;
  /** How the run's tokenizer is built from `train` (core's `runTokenizer`). */
  vocabulary: BuildOptions;
  /** Further test sets reported beside `test`, by name (Countdown: the other split, e.g. val_target). */
  extraTests?: Record<string, Example[]>;
  /** Questions for the training curves (a fixed slice is taken): held out from training and, where the task has one, from the test set. */
  validation: Example[];
}

/** `otherSplit`: also evaluate on the other generated split (val ↔ val_target, same count), reported as "<arm> [<split>]". */
export interface CountdownData { n: number; trainCount: number; testCount: number; testSplit: 'val' | 'val_target'; seed: number; rules: 'sos' | 'all-numbers'; testFile: string; otherSplit: boolean }
export const DEFAULT_COUNTDOWN_DATA: CountdownData = { n: 3, trainCount: 2000, testCount: 1000, testSplit: 'val', seed: 0, rules: 'sos', testFile: '', otherSplit: true };

/** Validation questions generated for Countdown's training curves (seed offset keeps them apart from the test split's draws). */
const COUNTDOWN_VALIDATION = { count: 200, seedOffset: 1_000_003 };

export interface Gsm8kData {
  trainLimit: number;
  testSplit: 'valid' | 'test';
  testLimit: number;
  /** Words seen fewer times in the training split encode as <unk> (1 keeps every word; digits are always kept). */
  vocabMinCount: number;
}
export const DEFAULT_GSM8K_DATA: Gsm8kData = { trainLimit: 0, testSplit: 'test', testLimit: 0, vocabMinCount: 1 };

export interface ProsqaData { trainCount: number; seed: number; testSplit: 'valid' | 'test'; testLimit: number }
export const DEFAULT_PROSQA_DATA: ProsqaData = { trainCount: 2000, seed: 0, testSplit: 'test', testLimit: 0 };

export const TASK_NAMES = ['countdown', 'gsm8k', 'prosqa'] as const;
export type LabTaskName = (typeof TASK_NAMES)[number];

export const DATA_DEFAULTS: Record<LabTaskName, object> = { countdown: DEFAULT_COUNTDOWN_DATA, gsm8k: DEFAULT_GSM8K_DATA, prosqa: DEFAULT_PROSQA_DATA };

export function checkTaskName(name: unknown, where: string): LabTaskName {
  if (typeof name !== 'string' || !TASK_NAMES.includes(name as LabTaskName)) {
    throw new Error(`${where}: unknown task ${JSON.stringify(name)}. Expected one of: ${TASK_NAMES.join(', ')}`);
  }
  return name as LabTaskName;
}

export function parseData(task: LabTaskName, data: unknown, where: string): object {
  const d = parseConfig(DATA_DEFAULTS[task], data, `${where} data`);
  // The generator's range, checked here so a bad value stops the run before any training.
  if (task === 'countdown' && !isCountdownSize((d as CountdownData).n)) {
    throw new Error(`${where} data.n: Countdown takes ${COUNTDOWN_MIN_N} to ${COUNTDOWN_MAX_N} numbers, got ${JSON.stringify((d as CountdownData).n)}`);
  }
  // Counts: a data config that would train or evaluate on nothing is an error, not "0.0 % (0/0)".
  const count = (key: string, value: unknown, min: number, note = '') => checkNumber(`${where} data.${key}${note}`, value, { integer: true, min });
  if (task === 'countdown') {
    const c = d as CountdownData;
    count('trainCount', c.trainCount, 1);
    if (!c.testFile) count('testCount', c.testCount, 1);
    count('seed', c.seed, 0);
  } else if (task === 'gsm8k') {
    count('trainLimit', (d as Gsm8kData).trainLimit, 0, ' (0: all)');
    count('testLimit', (d as Gsm8kData).testLimit, 0, ' (0: all)');
  } else {
    count('trainCount', (d as ProsqaData).trainCount, 1);
    count('testLimit', (d as ProsqaData).testLimit, 0, ' (0: all)');
    count('seed', (d as ProsqaData).seed, 0);
  }
  if (task === 'gsm8k') {
    const m = (d as Gsm8kData).vocabMinCount;
    if (!Number.isInteger(m) || m < 1) throw new Error(`${where} data.vocabMinCount: expected an integer ≥ 1 (1 keeps every word of the training split), got ${JSON.stringify(m)}`);
  }
  return d;
}

const limit = (xs: Example[], n: number) => (n > 0 ? xs.slice(0, n) : xs);

export async function loadTaskData(task: LabTaskName, data: object): Promise<TaskData> {
  switch (task) {
    case 'countdown': {
      const d = data as CountdownData;
      const scoring = d.rules === 'sos' ? countdownTask : countdownAllNumbersTask;
      const train = generateCountdown({ n: d.n, count: d.trainCount, seed: d.seed, split: 'train' });
      let test: Example[];
      if (d.testFile) test = (await loadCountdownJsonl(d.testFile)).examples;
      else {
        const avoid = new Set(train.map((e) => e.steps.join(', ')));
        test = generateCountdown({ n: d.n, count: d.testCount, seed: d.seed, split: d.testSplit, avoidSolutions: avoid });
      }
      const other = d.testSplit === 'val' ? 'val_target' : 'val';
      const extraTests = d.otherSplit && !d.testFile ? { [other]: generateCountdown({ n: d.n, count: d.testCount, seed: d.seed, split: other, avoidSolutions: new Set(train.map((e) => e.steps.join(', '))) }) } : {};
      const validation = generateCountdown({ n: d.n, count: COUNTDOWN_VALIDATION.count, seed: d.seed + COUNTDOWN_VALIDATION.seedOffset, split: 'val', avoidSolutions: new Set(train.map((e) => e.steps.join(', '))) });
      const hashes = { [`countdown-n${d.n}/train`]: examplesSha256(train), [`countdown-n${d.n}/${d.testFile || d.testSplit}`]: examplesSha256(test), ...Object.fromEntries(Object.entries(extraTests).map(([k, v]) => [`countdown-n${d.n}/${k}`, examplesSha256(v)])) };
      return { task: scoring, train, test, hashes, vocabulary: {}, extraTests, validation };
    }
    case 'gsm8k': {
      const d = data as Gsm8kData;
      const train = limit((await loadGsm8k('train')).examples, d.trainLimit);
      const test = limit((await loadGsm8k(d.testSplit)).examples, d.testLimit);
      const validation = d.testSplit === 'test' ? (await loadGsm8k('valid')).examples : test;
      return { task: gsm8kTask, train, test, hashes: { 'gsm8k/train': examplesSha256(train), [`gsm8k/${d.testSplit}`]: examplesSha256(test) }, vocabulary: { minCount: d.vocabMinCount }, validation };
    }
    case 'prosqa': {
      const d = data as ProsqaData;
      const valid = (await loadProsqa('valid')).examples;
      const real = [...valid, ...(await loadProsqa('test')).examples];
      const train = generateProsqa({ count: d.trainCount, seed: d.seed, exclude: new Set(real.map((e) => e.question)) });
      const test = limit((await loadProsqa(d.testSplit)).examples, d.testLimit);
      return { task: prosqaTask, train, test, hashes: { 'prosqa-generated/train': examplesSha256(train), [`prosqa/${d.testSplit}`]: examplesSha256(test) }, vocabulary: {}, validation: d.testSplit === 'test' ? valid : test };
    }
  }
}
