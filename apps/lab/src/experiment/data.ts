/**
 * Task data for an experiment: which examples train and which evaluate, per task, from the
 * shipped files or the seeded generators of @telepath/tasks. Each task has a typed data config
 * with defaults (unknown keys rejected) and reports the dataset hashes for env.json.
 */
import { checkNumber, parseConfig, Rng, type BuildOptions, type Example } from '@telepath/core';
import {
  COUNTDOWN_MAX_N,
  COUNTDOWN_MIN_N,
  COUNTDOWN_REASONING,
  NUMBER_FORMATS,
  countdownAllNumbersTask,
  countdownFact,
  countdownTask,
  countdownTrainBatch,
  exampleChars,
  examplesSha256,
  generateBalancedProsqa,
  curriculumPrefix,
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
  renderCountdown,
  type CountdownReasoning,
  type NumberFormat,
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
   * The training batch of a step, drawn with that step's Rng (so a resumed run sees the same
   * batches), where the task generates its training data on the fly; `train` is then a sample of
   * the same stream (vocabulary, context length, hashes). Absent: batches are drawn from `train`.
   */
  trainBatch?: (rng: Rng, step: number, batchSize: number) => Example[];
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

export interface CountdownData {
  n: number;
  /** Instances in the fixed training list; with `stream`, the size of the sample the vocabulary and context length come from. */
  trainCount: number;
  testCount: number;
  /** 'facts': arithmetic facts "a op b=" → "c" instead of instances (a probe of whether the arithmetic is learnable). */
  testSplit: 'val' | 'val_target' | 'facts';
  seed: number;
  rules: 'sos' | 'all-numbers';
  testFile: string;
  /** Fresh instances every step from the seeded generator (train targets; never a test instance's solution). */
  stream: boolean;
  /** How the reasoning is written: 'steps', 'state' ("a op b=c [left]"), 'search' (dead ends, "back") or 'search-check'. */
  reasoning: CountdownReasoning;
  numberFormat: NumberFormat;
  /** Dead ends a 'search' trace shows before it writes the solution. */
  searchBacks: number;
  /** Share of each batch that is "a op b=" → "c" facts during the first `warmupSteps` steps (every arm alike). */
  warmupShare: number;
  warmupSteps: number;
  /** Also evaluate on the other generated split (val ↔ val_target, same count), reported as "<arm> [<split>]". */
  otherSplit: boolean;
}
export const DEFAULT_COUNTDOWN_DATA: CountdownData = {
  n: 3,
  trainCount: 2000,
  testCount: 1000,
  testSplit: 'val',
  seed: 0,
  rules: 'sos',
  testFile: '',
  stream: false,
  reasoning: 'steps',
  numberFormat: 'plain',
  searchBacks: 4,
  warmupShare: 0,
  warmupSteps: 0,
  otherSplit: true,
};

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

export interface ProsqaData {
  trainCount: number;
  seed: number;
  testSplit: 'valid' | 'test';
  testLimit: number;
  /** 'english' (the files' sentences) or 'symbolic' (one token per name, an edge as a pair: @telepath/tasks symbolic.ts). */
  rendering: ProsqaRendering;
  /** Written reasoning: 'path' (ProsQA's own), or a breadth-first trace (symbolic rendering only): 'frontier'
   *  (the set reached so far per step) or 'expansion' (one node and all its children per step). */
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

function checkCountdownData(d: CountdownData, where: string): void {
  if (!isCountdownSize(d.n))
    throw new Error(
      `${where} data.n: Countdown takes ${COUNTDOWN_MIN_N} to ${COUNTDOWN_MAX_N} numbers, got ${JSON.stringify(d.n)}`,
    );
  if (!COUNTDOWN_REASONING.includes(d.reasoning))
    throw new Error(
      `${where} data.reasoning: expected one of ${COUNTDOWN_REASONING.join(', ')}, got ${JSON.stringify(d.reasoning)}`,
    );
  if (!['val', 'val_target', 'facts'].includes(d.testSplit))
    throw new Error(`${where} data.testSplit: expected val, val_target or facts, got ${JSON.stringify(d.testSplit)}`);
  if (!NUMBER_FORMATS.includes(d.numberFormat))
    throw new Error(
      `${where} data.numberFormat: expected one of ${NUMBER_FORMATS.join(', ')}, got ${JSON.stringify(d.numberFormat)}`,
    );
  if (!(d.warmupShare >= 0 && d.warmupShare <= 1))
    throw new Error(`${where} data.warmupShare: expected a share in 0..1, got ${d.warmupShare}`);
  for (const k of ['searchBacks', 'warmupSteps'] as const) {
    if (!Number.isInteger(d[k]) || d[k] < 0)
      throw new Error(`${where} data.${k}: expected an integer ≥ 0, got ${d[k]}`);
  }
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
  if (d.reasoning !== 'path' && d.rendering !== 'symbolic')
    throw new Error(
      `${where} data.reasoning: the ${d.reasoning} trace is written in the symbolic rendering only (set data.rendering to "symbolic")`,
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
  const tag = d.rendering === 'english' ? '' : `-symbolic-${d.reasoning}`;
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
  const train = english.map((e) => toSymbolicProsqa(e, d.reasoning));
  const test = testEnglish.map((e) => toSymbolicProsqa(e, d.reasoning));
  // Every written form (path, frontier, expansion), so arms that differ only in `reasoning` share one tokenizer.
  const vocabularyFrom = PROSQA_REASONING.flatMap((r) =>
    r === d.reasoning ? train : english.map((e) => toSymbolicProsqa(e, r)),
  );
  const validation = validEnglish.map((e) => toSymbolicProsqa(e, d.reasoning));
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

/**
 * Countdown: a fixed training list, or (`stream`) fresh instances every step; in both cases the
 * warm-up facts when `warmupShare` > 0, and every example written in the data's reasoning and
 * number format. Streamed training never draws a test instance's solution; a fixed list's test set
 * avoids the training solutions instead.
 */
async function countdownData(d: CountdownData): Promise<TaskData> {
  const scoring = d.rules === 'sos' ? countdownTask : countdownAllNumbersTask;
  const render = { reasoning: d.reasoning, numberFormat: d.numberFormat, maxBacks: d.searchBacks };
  const base = generateCountdown({ n: d.n, count: d.trainCount, seed: d.seed, split: 'train' });
  const avoid = d.stream ? undefined : new Set(base.map((e) => e.steps.join(', ')));
  let test: Example[];
  if (d.testFile) test = (await loadCountdownJsonl(d.testFile)).examples;
  else if (d.testSplit === 'facts') {
    const rng = new Rng(d.seed).fork('countdown/facts-test');
    test = Array.from({ length: d.testCount }, (_, i) =>
      countdownFact(rng, d.n, d.numberFormat, `countdown/n${d.n}/facts/${i}`),
    );
  } else {
    test = generateCountdown({ n: d.n, count: d.testCount, seed: d.seed, split: d.testSplit, avoidSolutions: avoid });
  }
  // The other split (val ↔ val_target) beside the test set, and the training curves' questions.
  const other = d.testSplit === 'val' ? 'val_target' : d.testSplit === 'val_target' ? 'val' : null;
  const otherTest =
    d.otherSplit && !d.testFile && other
      ? generateCountdown({ n: d.n, count: d.testCount, seed: d.seed, split: other, avoidSolutions: avoid })
      : [];
  const validation = generateCountdown({
    n: d.n,
    count: COUNTDOWN_VALIDATION.count,
    seed: d.seed + COUNTDOWN_VALIDATION.seedOffset,
    split: 'val',
    avoidSolutions: avoid,
  });
  const heldOut = [...test, ...otherTest, ...validation];
  const stream = {
    n: d.n,
    ...render,
    warmupShare: d.warmupShare,
    warmupSteps: d.warmupSteps,
    avoidSolutions: new Set(heldOut.map((e) => e.steps.join(', '))),
  };
  const plain = d.reasoning === 'steps' && d.numberFormat === 'plain'; // the original text, records unchanged
  const train = plain ? base : base.map((e) => renderCountdown(e, render));
  const renderAll = (xs: Example[]) => (plain ? xs : xs.map((e) => renderCountdown(e, render)));
  // A test file's instances come without solutions: only their numbers are rewritten.
  const rendered =
    plain || d.testSplit === 'facts'
      ? test
      : test.map((e) => renderCountdown(e, d.testFile ? { ...render, reasoning: 'steps' } : render));
  const extraTests: Record<string, Example[]> = other && otherTest.length ? { [other]: renderAll(otherTest) } : {};
  // The context length is sized from `train` and the test set: longer streamed instances are redrawn.
  const maxChars = Math.max(...[...train, ...rendered].map(exampleChars));
  const trainBatch = d.stream
    ? (rng: Rng, step: number, batchSize: number) => countdownTrainBatch({ ...stream, maxChars }, rng, step, batchSize)
    : d.warmupShare > 0
      ? (rng: Rng, step: number, batchSize: number) =>
          countdownTrainBatch({ ...stream, pool: train }, rng, step, batchSize)
      : undefined;
  const hashes = {
    [`countdown-n${d.n}/train${d.stream ? '-sample' : ''}`]: examplesSha256(train),
    [`countdown-n${d.n}/${d.testFile || d.testSplit}`]: examplesSha256(rendered),
    ...Object.fromEntries(Object.entries(extraTests).map(([k, v]) => [`countdown-n${d.n}/${k}`, examplesSha256(v)])),
  };
  return {
    task: scoring,
    train,
    test: rendered,
    hashes,
    vocabulary: {},
    extraTests,
    validation: renderAll(validation),
    ...(trainBatch ? { trainBatch } : {}),
  };
}
