/**
 * Task data for an experiment: which examples train and which evaluate, per task, from the
 * shipped files or the seeded generators of @telepath/tasks. Each task has a typed data config
 * with defaults (unknown keys rejected) and reports the dataset hashes for env.json.
 */
import { parseConfig, type BuildOptions, type Example } from '@telepath/core';
import {
  COUNTDOWN_MAX_N,
  COUNTDOWN_MIN_N,
  countdownAllNumbersTask,
  countdownTask,
  examplesSha256,
  generateBalancedProsqa,
  generateCountdown,
  generateProsqa,
  gsm8kTask,
  isCountdownSize,
  loadCountdownJsonl,
  loadGsm8k,
  loadProsqa,
  PROSQA_REASONING,
  PROSQA_RENDERINGS,
  prosqaTask,
  toSymbolicProsqa,
  type ProsqaReasoning,
  type ProsqaRendering,
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
  /**
   * Examples the tokenizer is built from instead of `train`, where arms of one experiment train on
   * different written reasoning but must share a vocabulary (an `initFrom` between them).
   */
  vocabularyFrom?: Example[];
}

export interface CountdownData { n: number; trainCount: number; testCount: number; testSplit: 'val' | 'val_target'; seed: number; rules: 'sos' | 'all-numbers'; testFile: string }
export const DEFAULT_COUNTDOWN_DATA: CountdownData = { n: 3, trainCount: 2000, testCount: 200, testSplit: 'val', seed: 0, rules: 'sos', testFile: '' };

export interface Gsm8kData {
  trainLimit: number;
  testSplit: 'valid' | 'test';
  testLimit: number;
  /** Words seen fewer times in the training split encode as <unk> (1 keeps every word; digits are always kept). */
  vocabMinCount: number;
}
export const DEFAULT_GSM8K_DATA: Gsm8kData = { trainLimit: 0, testSplit: 'test', testLimit: 0, vocabMinCount: 1 };

export interface ProsqaData {
  trainCount: number;
  seed: number;
  testSplit: 'valid' | 'test';
  testLimit: number;
  /** 'english' (the files' sentences) or 'symbolic' (one token per name, an edge as a pair: @telepath/tasks symbolic.ts). */
  rendering: ProsqaRendering;
  /** Written reasoning in the steps: 'path' (ProsQA's own) or 'frontier' (breadth-first trace; symbolic rendering only). */
  reasoning: ProsqaReasoning;
  /** Training graphs: 'coconut' (generateProsqa, the real files' statistics) or 'balanced' (generateBalancedProsqa: no mention or in-degree shortcut, 2-6 hops). */
  generator: 'coconut' | 'balanced';
}
export const DEFAULT_PROSQA_DATA: ProsqaData = { trainCount: 2000, seed: 0, testSplit: 'test', testLimit: 0, rendering: 'english', reasoning: 'path', generator: 'coconut' };

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
  if (task === 'gsm8k') {
    const m = (d as Gsm8kData).vocabMinCount;
    if (!Number.isInteger(m) || m < 1) throw new Error(`${where} data.vocabMinCount: expected an integer ≥ 1 (1 keeps every word of the training split), got ${JSON.stringify(m)}`);
  }
  if (task === 'prosqa') checkProsqaData(d as ProsqaData, where);
  return d;
}

function checkProsqaData(d: ProsqaData, where: string): void {
  const choices: [keyof ProsqaData, readonly string[]][] = [['rendering', PROSQA_RENDERINGS], ['reasoning', PROSQA_REASONING], ['generator', ['coconut', 'balanced']], ['testSplit', ['valid', 'test']]];
  for (const [key, valid] of choices) {
    if (!valid.includes(d[key] as string)) throw new Error(`${where} data.${key}: expected one of ${valid.join(', ')}, got ${JSON.stringify(d[key])}`);
  }
  if (d.reasoning === 'frontier' && d.rendering !== 'symbolic') throw new Error(`${where} data.reasoning: the frontier trace is written in the symbolic rendering only (set data.rendering to "symbolic")`);
}

/** ProsQA's train and test examples in the configured rendering, reasoning and training generator. */
async function prosqaData(d: ProsqaData): Promise<TaskData> {
  const real = [...(await loadProsqa('valid')).examples, ...(await loadProsqa('test')).examples];
  const exclude = new Set(real.map((e) => e.question));
  const english = d.generator === 'balanced'
    ? generateBalancedProsqa({ count: d.trainCount, seed: d.seed, exclude })
    : generateProsqa({ count: d.trainCount, seed: d.seed, exclude });
  const testEnglish = limit((await loadProsqa(d.testSplit)).examples, d.testLimit);
  const generated = d.generator === 'balanced' ? 'prosqa-balanced' : 'prosqa-generated';
  const tag = d.rendering === 'english' ? '' : `-symbolic-${d.reasoning}`;
  const hashesOf = (train: Example[], test: Example[]) => ({ [`${generated}${tag}/train`]: examplesSha256(train), [`prosqa${tag}/${d.testSplit}`]: examplesSha256(test) });
  if (d.rendering === 'english') return { task: prosqaTask, train: english, test: testEnglish, hashes: hashesOf(english, testEnglish), vocabulary: {} };
  const train = english.map((e) => toSymbolicProsqa(e, d.reasoning));
  const test = testEnglish.map((e) => toSymbolicProsqa(e, d.reasoning));
  // Both written forms, so arms that differ only in `reasoning` share one tokenizer.
  const vocabularyFrom = PROSQA_REASONING.flatMap((r) => (r === d.reasoning ? train : english.map((e) => toSymbolicProsqa(e, r))));
  return { task: prosqaTask, train, test, hashes: hashesOf(train, test), vocabulary: {}, vocabularyFrom };
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
      return { task: scoring, train, test, hashes: { [`countdown-n${d.n}/train`]: examplesSha256(train), [`countdown-n${d.n}/${d.testFile || d.testSplit}`]: examplesSha256(test) }, vocabulary: {} };
    }
    case 'gsm8k': {
      const d = data as Gsm8kData;
      const train = limit((await loadGsm8k('train')).examples, d.trainLimit);
      const test = limit((await loadGsm8k(d.testSplit)).examples, d.testLimit);
      return { task: gsm8kTask, train, test, hashes: { 'gsm8k/train': examplesSha256(train), [`gsm8k/${d.testSplit}`]: examplesSha256(test) }, vocabulary: { minCount: d.vocabMinCount } };
    }
    case 'prosqa':
      return prosqaData(data as ProsqaData);
  }
}
