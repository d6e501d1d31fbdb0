/**
 * Task data for an experiment: which examples train and which evaluate, per task, from the
 * shipped files or the seeded generators of @telepath/tasks. Each task has a typed data config
 * with defaults (unknown keys rejected) and reports the dataset hashes for env.json.
 */
import { checkNumber, parseConfig, Rng, type BuildOptions, type Example } from '@telepath/core';
import {
  examplesSha256,
  generateBalancedProsqa,
  curriculumPrefix,
  generateProsqa,
  gsm8kTask,
  loadGsm8k,
  loadProsqa,
  PROSQA_REASONING,
  PROSQA_RENDERINGS,
  prosqaTask,
  renderProsqa,
  type ProsqaReasoning,
  type ProsqaRendering,
  type Task,
} from '@telepath/tasks';
import {
  checkCountdownData,
  countdownData,
  DEFAULT_COUNTDOWN_DATA,
  otherSplitOf,
  type CountdownData,
} from './data-countdown.js';

export { DEFAULT_COUNTDOWN_DATA, type CountdownData };

export interface TaskData {
  task: Task;
  train: Example[];
  test: Example[];
  /** name → sha256 of the examples (files are also checked by the loaders). */
  hashes: Record<string, string>;
  /** How the run's tokenizer is built from `train` (core's `runTokenizer`). */
  vocabulary: BuildOptions;
  /**
   * The training batch of a step, drawn with that step's Rng (so a resumed run sees the same
   * batches), where the task generates its training data on the fly; `train` is then a sample of
   * the same stream (vocabulary, context length, hashes). Absent: batches are drawn from `train`.
   */
  trainBatch?: (rng: Rng, step: number, batchSize: number) => Example[];
  /**
   * Where `trainBatch` makes new examples (not drawn from `train`): none is longer than this many
   * characters (tasks' `exampleChars`; a token spans at least one character), so the run's
   * context is sized to hold every batch the stream can draw, not only the sample in `train`.
   */
  streamedChars?: number;
  /** Further test sets reported beside `test`, by name (Countdown: the other split, e.g. val_target). */
  extraTests?: Record<string, Example[]>;
  /** Questions for the training curves (a fixed slice is taken): held out from training and, where the task has one, from the test set. */
  validation: Example[];
  /**
   * Examples the tokenizer is built from instead of `train`, where arms of one experiment train on
   * different written reasoning but must share a vocabulary (an `initFrom` between them).
   */
  vocabularyFrom?: Example[];
}

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
  /** 'english' (the files' sentences), 'symbolic' (one token per name, an edge as a pair: @telepath/tasks symbolic.ts)
   *  'grouped' (symbolic, each node's edges together: " u: v1 v2.") or 'headed' (grouped without punctuation,
   *  each group opened by its node capitalised: " Sally boompus gerpus Boompus terpus"). */
  rendering: ProsqaRendering;
  /** Written reasoning: 'path' (ProsQA's own), or a breadth-first trace (symbolic rendering only): 'frontier'
   *  (the set reached so far per step), 'expansion' (one node and all its children per step) or
   *  'expansion-queue' (the same, each line also stating the queue it leaves: "+ U c1 c2: q1 q2"),
   *  'expansion-queue-done' (and then the nodes expanded so far: "+ U c1 c2: q1 q2> root n1 u"),
   *  'expansion-queue-done-cut' (the same, the last line's children only up to the first option); the lookup
   *  probe's 'lookup' and 'lookup-span' (the first expansion line alone), 'echo' (every node's line,
   *  the question copied) and 'echo-line' (the same copy as one line; both grouped or headed rendering;
   *  'lookup-span' grouped only). */
  reasoning: ProsqaReasoning;
  /** Training graphs: 'coconut' (generateProsqa, the real files' statistics) or 'balanced' (generateBalancedProsqa: no mention or in-degree shortcut, 2-6 hops). */
  generator: 'coconut' | 'balanced';
  /**
   * Depth curriculum (balanced generator only): the training set is ordered in stages of rising
   * answer depth (2, 2-3, …, 2-6) and step t draws from the stages opened by then, all of them from
   * step `curriculumSteps` on (@telepath/tasks curriculumPrefix). 0: no curriculum, uniform draws.
   */
  curriculumSteps: number;
}
export const DEFAULT_PROSQA_DATA: ProsqaData = {
  trainCount: 2000,
  seed: 0,
  testSplit: 'test',
  testLimit: 0,
  rendering: 'english',
  reasoning: 'path',
  generator: 'coconut',
  curriculumSteps: 0,
};

export const TASK_NAMES = ['countdown', 'gsm8k', 'prosqa'] as const;
export type LabTaskName = (typeof TASK_NAMES)[number];

export const DATA_DEFAULTS: Record<LabTaskName, object> = {
  countdown: DEFAULT_COUNTDOWN_DATA,
  gsm8k: DEFAULT_GSM8K_DATA,
  prosqa: DEFAULT_PROSQA_DATA,
};

export function checkTaskName(name: unknown, where: string): LabTaskName {
  if (typeof name !== 'string' || !TASK_NAMES.includes(name as LabTaskName)) {
    throw new Error(`${where}: unknown task ${JSON.stringify(name)}. Expected one of: ${TASK_NAMES.join(', ')}`);
  }
  return name as LabTaskName;
}

export function parseData(task: LabTaskName, data: unknown, where: string): object {
  const d = parseConfig(DATA_DEFAULTS[task], data, `${where} data`);
  // The generator's range, checked here so a bad value stops the run before any training.
  if (task === 'countdown') checkCountdownData(d as CountdownData, where);
  // Counts: a data config that would train or evaluate on nothing is an error, not "0.0 % (0/0)".
  const count = (key: string, value: unknown, min: number, note = '') =>
    checkNumber(`${where} data.${key}${note}`, value, { integer: true, min });
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
    if (!Number.isInteger(m) || m < 1)
      throw new Error(
        `${where} data.vocabMinCount: expected an integer ≥ 1 (1 keeps every word of the training split), got ${JSON.stringify(m)}`,
      );
  }
  if (task === 'prosqa') checkProsqaData(d as ProsqaData, where);
  return d;
}

function checkProsqaData(d: ProsqaData, where: string): void {
  const choices: [keyof ProsqaData, readonly string[]][] = [
    ['rendering', PROSQA_RENDERINGS],
    ['reasoning', PROSQA_REASONING],
    ['generator', ['coconut', 'balanced']],
    ['testSplit', ['valid', 'test']],
  ];
  for (const [key, valid] of choices) {
    if (!valid.includes(d[key] as string))
      throw new Error(`${where} data.${key}: expected one of ${valid.join(', ')}, got ${JSON.stringify(d[key])}`);
  }
  if (!Number.isInteger(d.curriculumSteps) || d.curriculumSteps < 0)
    throw new Error(
      `${where} data.curriculumSteps: expected an integer ≥ 0 (0: no curriculum), got ${JSON.stringify(d.curriculumSteps)}`,
    );
  if (d.curriculumSteps > 0 && d.generator !== 'balanced')
    throw new Error(
      `${where} data.curriculumSteps: the depth curriculum orders the balanced generator's graphs (set data.generator to "balanced")`,
    );
  if (d.reasoning !== 'path' && d.rendering === 'english')
    throw new Error(
      `${where} data.reasoning: the ${d.reasoning} trace is written in the symbolic renderings only (set data.rendering to "symbolic", "grouped" or "headed")`,
    );
  if (d.reasoning === 'lookup-span' && d.rendering !== 'grouped')
    throw new Error(
      `${where} data.reasoning: lookup-span copies the grouped question's span " u: c1 c2." (set data.rendering to "grouped")`,
    );
  if ((d.reasoning === 'echo' || d.reasoning === 'echo-line') && d.rendering !== 'grouped' && d.rendering !== 'headed')
    throw new Error(
      `${where} data.reasoning: ${d.reasoning} copies the question's groups (set data.rendering to "grouped" or "headed")`,
    );
}

/** ProsQA's train and test examples in the configured rendering, reasoning and training generator. */
async function prosqaData(d: ProsqaData): Promise<TaskData> {
  const valid = (await loadProsqa('valid')).examples;
  const realTest = (await loadProsqa('test')).examples;
  const exclude = new Set([...valid, ...realTest].map((e) => e.question));
  const english =
    d.generator === 'balanced'
      ? generateBalancedProsqa({ count: d.trainCount, seed: d.seed, exclude, curriculum: d.curriculumSteps > 0 })
      : generateProsqa({ count: d.trainCount, seed: d.seed, exclude });
  const testEnglish = limit(d.testSplit === 'test' ? realTest : valid, d.testLimit);
  const generated = d.generator === 'balanced' ? 'prosqa-balanced' : 'prosqa-generated';
  const tag = d.rendering === 'english' ? '' : `-${d.rendering}-${d.reasoning}`;
  const hashesOf = (train: Example[], test: Example[]) => ({
    [`${generated}${tag}/train`]: examplesSha256(train),
    [`prosqa${tag}/${d.testSplit}`]: examplesSha256(test),
  });
  // The training curves' questions: the valid split when the test split is scored, else the test questions.
  const validEnglish = d.testSplit === 'test' ? valid : testEnglish;
  const curriculum = (train: Example[]) =>
    d.curriculumSteps > 0 ? { trainBatch: curriculumBatches(train, d.curriculumSteps) } : {};
  if (d.rendering === 'english')
    return {
      task: prosqaTask,
      train: english,
      test: testEnglish,
      hashes: hashesOf(english, testEnglish),
      vocabulary: {},
      validation: validEnglish,
      ...curriculum(english),
    };
  const render = (xs: Example[], reasoning: ProsqaReasoning) => xs.map((e) => renderProsqa(e, d.rendering, reasoning));
  const train = render(english, d.reasoning);
  const test = render(testEnglish, d.reasoning);
  // Every written form (path, frontier, expansion), so arms that differ only in `reasoning` share one tokenizer.
  const vocabularyFrom = PROSQA_REASONING.flatMap((r) => (r === d.reasoning ? train : render(english, r)));
  const validation = render(validEnglish, d.reasoning);
  return {
    task: prosqaTask,
    train,
    test,
    hashes: hashesOf(train, test),
    vocabulary: {},
    vocabularyFrom,
    validation,
    ...curriculum(train),
  };
}

/** Batches drawn uniformly from the part of the depth-ordered set that the curriculum has opened at `step`. */
function curriculumBatches(ordered: Example[], curriculumSteps: number): NonNullable<TaskData['trainBatch']> {
  return (rng, step, batchSize) => {
    const open = curriculumPrefix(step, curriculumSteps, ordered.length);
    return Array.from({ length: batchSize }, () => ordered[rng.int(open)]);
  };
}

const limit = (xs: Example[], n: number) => (n > 0 ? xs.slice(0, n) : xs);

/** The names of `TaskData.extraTests` for these settings, without loading the data (a finished record is checked against them). */
export function extraTestNames(task: LabTaskName, data: object): string[] {
  const other = task === 'countdown' ? otherSplitOf(data as CountdownData) : null;
  return other ? [other] : [];
}

export async function loadTaskData(task: LabTaskName, data: object): Promise<TaskData> {
  switch (task) {
    case 'countdown':
      return countdownData(data as CountdownData);
    case 'gsm8k': {
      const d = data as Gsm8kData;
      const train = limit((await loadGsm8k('train')).examples, d.trainLimit);
      const test = limit((await loadGsm8k(d.testSplit)).examples, d.testLimit);
      const validation = d.testSplit === 'test' ? (await loadGsm8k('valid')).examples : test;
      return {
        task: gsm8kTask,
        train,
        test,
        hashes: { 'gsm8k/train': examplesSha256(train), [`gsm8k/${d.testSplit}`]: examplesSha256(test) },
        vocabulary: { minCount: d.vocabMinCount },
        validation,
      };
    }
    case 'prosqa':
      return prosqaData(data as ProsqaData);
  }
}
