/**
 * Countdown training batches generated on the fly: every step draws fresh instances from the
 * seeded generator (train targets only, so the split by target holds), written in the arm's
 * reasoning and number format. A batch is a function of the Rng it is given — the training loop
 * hands each step `rng.fork('step/<n>')` — so the same seed gives the same batches, also after a
 * resume. During the first `warmupSteps` steps a fixed share of every batch is single arithmetic
 * facts, "a op b=" → "c", the same for every arm whatever its reasoning format. A guessing search
 * may ask for more of the problems it fails most (`singleSolutionShare`).
 */
import type { Rng } from '@telepath/core';
import type { Example } from '../example.js';
import {
  countdownTargets,
  drawCountdownInstance,
  DEFAULT_COUNTDOWN_GEN_CONFIG,
  type CountdownMeta,
} from './generate.js';
import { readNumbers, renderCountdown, writeNumbers, type NumberFormat, type RenderOptions } from './reasoning.js';
import { sosMoves } from './rules.js';
import { sosSolutionCount } from './sos-dfs.js';
import { solvedState } from './start-tries.js';

export interface CountdownStreamOptions extends RenderOptions {
  n: number;
  /** Solutions (steps joined by ", ") never drawn for training: the test set's. */
  avoidSolutions?: ReadonlySet<string>;
  /** Share of each warm-up batch that is arithmetic facts (rounded to whole examples). */
  warmupShare: number;
  /** Steps (from 0) whose batches carry the facts. */
  warmupSteps: number;
  /** Which moves the facts on two random numbers are (countdownFact); default 'moves'. */
  factOps?: FactOps;
  /** Draw the instances from this fixed list (already rendered) instead of generating them. */
  pool?: readonly Example[];
  /**
   * Longest text (question, steps and answer, in characters) an instance may have; longer ones
   * are redrawn, so a stream never outgrows the context length sized from a sample of it.
   */
  maxChars?: number;
  /**
   * Share of the instances (facts aside) redrawn until the three-number state their guessing
   * search solves has a single solution (`singleSolutionGuess`): 'search-guess' traces only;
   * default 0 (every instance as drawn, the Rng used as before).
   */
  singleSolutionShare?: number;
}

/**
 * Whether a rendered 'search-guess' example's solved three-number state (its last try's) has a
 * single SoS solution: the states Countdown-4's guess sees at a glance least often (search-stats).
 */
export function singleSolutionGuess(ex: Example, numberFormat: NumberFormat): boolean {
  const { nums, target } = ex.meta as CountdownMeta;
  const state = solvedState(
    { nums, target },
    ex.steps.map((s) => readNumbers(s, numberFormat)),
  );
  return state !== null && sosSolutionCount(state, target) === 1;
}

/** Characters of an example's text: never fewer than its tokens (one token per digit or sign, words shorter). */
export function exampleChars(e: Example): number {
  return e.question.length + e.steps.reduce((a, s) => a + s.length + 1, 0) + e.answer.length;
}

/** How many of a batch of `batchSize` at `step` are facts. */
export function factsInBatch(
  o: Pick<CountdownStreamOptions, 'warmupShare' | 'warmupSteps'>,
  step: number,
  batchSize: number,
): number {
  return step < o.warmupSteps ? Math.round(o.warmupShare * batchSize) : 0;
}

/**
 * How the half of the facts that is not a solution step is drawn: 'moves', a SoS move (+, ×, −,
 * and ÷ when it is exact) on two numbers uniform in 1..99, so a quotient is ≈ 1 % of them; or
 * 'every-op', the operation first, uniform over + × − ÷, a quotient being the inverse of a product
 * (hi = lo·q with lo, q uniform in 1..99), so each operation is a quarter of them.
 */
export type FactOps = 'moves' | 'every-op';
export const FACT_OPS: readonly FactOps[] = ['moves', 'every-op'];

/** A fact on random numbers (the half of the facts that is not a solution step), as [left, op, right, result]. */
function randomFactStep(rng: Rng, ops: FactOps, max: number): [number, string, number, number] {
  const draw = () => 1 + rng.int(max - 1);
  if (ops === 'moves') return rng.pick(sosMoves(draw(), draw()));
  const op = rng.pick(['+', '*', '-', '/'] as const);
  const [a, b] = [draw(), draw()];
  if (op === '/') return [a * b, '/', a, b];
  return sosMoves(a, b).find((m) => m[1] === op)!;
}

/**
 * One arithmetic fact as an Example (question "a op b=", answer "c"; meta.fact). Half are a step of
 * a fresh instance's SoS solution (the arithmetic the chains need, intermediates included), half a
 * fact on two numbers uniform in the given numbers' range 1..99 (`FactOps`).
 */
export function countdownFact(
  rng: Rng,
  n: number,
  numberFormat: NumberFormat,
  id: string,
  ops: FactOps = 'moves',
): Example {
  const cfg = DEFAULT_COUNTDOWN_GEN_CONFIG;
  let step: [number, string, number, number];
  if (rng.float() < 0.5) {
    const ex = drawCountdownInstance(rng, n, countdownTargets(cfg).train, cfg, undefined, id, 'train');
    const m = /^(\d+)([-+*/])(\d+)=(\d+)$/.exec(rng.pick(ex.steps))!;
    step = [Number(m[1]), m[2], Number(m[3]), Number(m[4])];
  } else {
    step = randomFactStep(rng, ops, cfg.maxTarget);
  }
  const [l, op, r, c] = step;
  const fmt = (t: string) => writeNumbers(t, numberFormat);
  const meta: CountdownMeta = { nums: [l, r], target: c, rules: 'sos', fact: true, numberFormat };
  return { id, question: fmt(`${l}${op}${r}=`), steps: [], answer: fmt(String(c)), meta };
}

/** The training batch of `step`, drawn with that step's Rng: facts first (during the warm-up), then fresh instances. */
export function countdownTrainBatch(o: CountdownStreamOptions, rng: Rng, step: number, batchSize: number): Example[] {
  const cfg = DEFAULT_COUNTDOWN_GEN_CONFIG;
  const targets = countdownTargets(cfg).train;
  const facts = factsInBatch(o, step, batchSize);
  return Array.from({ length: batchSize }, (_, i) => {
    const id = `countdown/n${o.n}/stream/${step}/${i}`;
    if (i < facts) return countdownFact(rng, o.n, o.numberFormat, `${id}/fact`, o.factOps);
    if (o.pool) return o.pool[rng.int(o.pool.length)];
    const single = (o.singleSolutionShare ?? 0) > 0 && rng.float() < o.singleSolutionShare!;
    for (;;) {
      const ex = renderCountdown(drawCountdownInstance(rng, o.n, targets, cfg, o.avoidSolutions, id, 'train'), o);
      if (o.maxChars !== undefined && exampleChars(ex) > o.maxChars) continue;
      if (!single || singleSolutionGuess(ex, o.numberFormat)) return ex;
    }
  });
}
