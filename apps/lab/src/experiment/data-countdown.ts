/**
 * Countdown's data config for an experiment (typed, with defaults; checked before any training) and
 * its examples: the generated splits, the streamed training batches, every example written in the
 * data's reasoning and number format.
 */
import { Rng, type Example } from '@telepath/core';
import {
  COUNTDOWN_MAX_N,
  COUNTDOWN_MIN_N,
  COUNTDOWN_REASONING,
  SEARCH_REASONING,
  FACT_OPS,
  NUMBER_FORMATS,
  SEARCH_ORDERS,
  countdownAllNumbersTask,
  countdownFact,
  countdownTask,
  countdownTrainBatch,
  exampleChars,
  examplesSha256,
  generateCountdown,
  isCountdownSize,
  loadCountdownJsonl,
  renderCountdown,
  type CountdownReasoning,
  type FactOps,
  type NumberFormat,
  type SearchOrder,
} from '@telepath/tasks';
import type { TaskData } from './data.js';

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
  /** How the reasoning is written: 'steps', 'state' ("a op b=c [left]"), 'search' (dead ends, "back"), 'search-check', 'search-judged', 'search-guided' or 'search-guess'. */
  reasoning: CountdownReasoning;
  numberFormat: NumberFormat;
  /** Dead ends a 'search' trace shows before it writes the solution. */
  searchBacks: number;
  /** The order a search trace tries moves in: 'closest' result first, 'listed' (pairs left to right, then + * - /), or 'products-last' (listed, products of two numbers ≥ 10 last). */
  searchOrder: SearchOrder;
  /** Search traces write each inexact division they pass as a rejected move "a/b x" ('listed' or 'products-last' order; @telepath/tasks reasoning.ts). */
  rejectInexact: boolean;
  /** Search traces write each product of two numbers ≥ 10 with no solution below it as "a*b x", not entered ('products-last' order; @telepath/tasks reasoning.ts). */
  judgeLongProducts: boolean;
  /** Share of each batch that is "a op b=" → "c" facts during the first `warmupSteps` steps (every arm alike). */
  warmupShare: number;
  warmupSteps: number;
  /** The facts on random numbers: 'moves' (a SoS move, ÷ only when exact: ≈ 1 % quotients) or 'every-op' (each operation a quarter; @telepath/tasks stream.ts). */
  factOps: FactOps;
  /** Also evaluate on the other generated split (val ↔ val_target, same count), reported as "<arm> [<split>]". */
  otherSplit: boolean;
  /** Share of the streamed problems redrawn until the three-number state their guessing search solves has a single solution ('search-guess', stream; @telepath/tasks stream.ts). */
  singleSolutionShare: number;
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
  searchOrder: 'closest',
  rejectInexact: false,
  judgeLongProducts: false,
  warmupShare: 0,
  warmupSteps: 0,
  factOps: 'moves',
  otherSplit: true,
  singleSolutionShare: 0,
};

/** Validation questions generated for Countdown's training curves (seed offset keeps them apart from the test split's draws). */
const COUNTDOWN_VALIDATION = { count: 200, seedOffset: 1_000_003 };

export function checkCountdownData(d: CountdownData, where: string): void {
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
  if (!SEARCH_ORDERS.includes(d.searchOrder))
    throw new Error(
      `${where} data.searchOrder: expected one of ${SEARCH_ORDERS.join(', ')}, got ${JSON.stringify(d.searchOrder)}`,
    );
  if (d.rejectInexact && (!SEARCH_REASONING.includes(d.reasoning) || d.searchOrder === 'closest'))
    throw new Error(
      `${where} data.rejectInexact: rejected divisions are written by a search trace in the 'listed' or 'products-last' order (data.reasoning ${JSON.stringify(d.reasoning)}, data.searchOrder ${JSON.stringify(d.searchOrder)})`,
    );
  if (d.judgeLongProducts && (!SEARCH_REASONING.includes(d.reasoning) || d.searchOrder !== 'products-last'))
    throw new Error(
      `${where} data.judgeLongProducts: judged products are written by a search trace in the 'products-last' order (data.reasoning ${JSON.stringify(d.reasoning)}, data.searchOrder ${JSON.stringify(d.searchOrder)})`,
    );
  if (!FACT_OPS.includes(d.factOps))
    throw new Error(`${where} data.factOps: expected one of ${FACT_OPS.join(', ')}, got ${JSON.stringify(d.factOps)}`);
  for (const k of ['warmupShare', 'singleSolutionShare'] as const)
    if (!(d[k] >= 0 && d[k] <= 1)) throw new Error(`${where} data.${k}: expected a share in 0..1, got ${d[k]}`);
  if (d.singleSolutionShare > 0 && (d.reasoning !== 'search-guess' || !d.stream || d.n < 4))
    throw new Error(
      `${where} data.singleSolutionShare: problems are redrawn for a guessing search's three-number state, so it needs data.reasoning "search-guess", data.stream true and data.n ≥ 4 (got ${JSON.stringify(d.reasoning)}, stream ${d.stream}, n ${d.n})`,
    );
  for (const k of ['searchBacks', 'warmupSteps'] as const) {
    if (!Number.isInteger(d[k]) || d[k] < 0)
      throw new Error(`${where} data.${k}: expected an integer ≥ 0, got ${d[k]}`);
  }
}

/**
 * Countdown: a fixed training list, or (`stream`) fresh instances every step; in both cases the
 * warm-up facts when `warmupShare` > 0, and every example written in the data's reasoning and
 * number format. Streamed training never draws a test instance's solution; a fixed list's test set
 * avoids the training solutions instead.
 */
export async function countdownData(d: CountdownData): Promise<TaskData> {
  const scoring = d.rules === 'sos' ? countdownTask : countdownAllNumbersTask;
  const render = {
    reasoning: d.reasoning,
    numberFormat: d.numberFormat,
    maxBacks: d.searchBacks,
    searchOrder: d.searchOrder,
    rejectInexact: d.rejectInexact,
    judgeLongProducts: d.judgeLongProducts,
  };
  const base = generateCountdown({ n: d.n, count: d.trainCount, seed: d.seed, split: 'train' });
  const avoid = d.stream ? undefined : new Set(base.map((e) => e.steps.join(', ')));
  let test: Example[];
  if (d.testFile) test = (await loadCountdownJsonl(d.testFile)).examples;
  else if (d.testSplit === 'facts') {
    const rng = new Rng(d.seed).fork('countdown/facts-test');
    test = Array.from({ length: d.testCount }, (_, i) =>
      countdownFact(rng, d.n, d.numberFormat, `countdown/n${d.n}/facts/${i}`, d.factOps),
    );
  } else {
    test = generateCountdown({ n: d.n, count: d.testCount, seed: d.seed, split: d.testSplit, avoidSolutions: avoid });
  }
  // The other split (val ↔ val_target) beside the test set, and the training curves' questions.
  const other = otherSplitOf(d);
  const otherTest = other
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
    factOps: d.factOps,
    singleSolutionShare: d.singleSolutionShare,
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
  const extraTests: Record<string, Example[]> = other ? { [other]: renderAll(otherTest) } : {};
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
    ...(d.stream ? { streamedChars: maxChars } : {}),
  };
}

/**
 * The split reported beside the test set (val ↔ val_target), known from the settings alone so a
 * finished record can be checked for it without generating any data; null when there is none.
 */
export function otherSplitOf(d: CountdownData): 'val' | 'val_target' | null {
  if (!d.otherSplit || d.testFile) return null;
  return d.testSplit === 'val' ? 'val_target' : d.testSplit === 'val_target' ? 'val' : null;
}
