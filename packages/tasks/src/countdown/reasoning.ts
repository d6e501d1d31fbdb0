/**
 * How a Countdown solution is written for a model to learn (the `steps` of an Example):
 * - 'steps':  the SoS solution, one "a op b=c" per line (the original format);
 * - 'state':  each step also states what remains, "29-11=18 [18 62]": the new result first, then
 *             the numbers not used yet in their order, so every line carries the whole state;
 * - 'search': a depth-first search written out in the spirit of Stream-of-Search (Gandhi et al.
 *             2024, §3): moves in the 'state' format, tried in order of how close their result is
 *             to the target; a two-number state that no operation turns into the target is a dead
 *             end, and "back [s]" returns to the state s on the current path before the next try.
 *             After `maxBacks` dead ends the trace goes "back" to the start and writes the solution.
 * - 'search-check': the same search, and at a two-number state that is a dead end it also writes
 *             the closest move ("40+26=66 [66]") before going back. The closest result is the target
 *             whenever any move reaches it, so that one written line is the whole check "does an
 *             operation on these two numbers give the target?", which 'search' leaves implicit.
 * - 'search-judged': 'search-check', and a move from four or more numbers into a three-number state
 *             that has no solution is written with " x" ("29*11=319 [319 62 5] x") and not entered:
 *             the model judges a small state at a glance instead of searching it in writing. At
 *             n = 3 it is 'search-check'; at n = 4 it keeps the written search to one three-number
 *             state, short enough for the context (trace-stats.ts).
 * - 'search-guided': 'search-check' where a state of four or more numbers is not searched move by
 *             move: the trace enters the first move (in the search order) into a state that has a
 *             solution and writes nothing about the others, so the model chooses a good move instead
 *             of judging each one right. In a share of the traces (GUIDED_DETOUR_SHARE, picked by
 *             the instance, so the same problem is always written the same way) the top state first
 *             enters one move into a state with no solution, searches it to its last dead end in
 *             writing (no dead-end budget), goes "back" and then enters the good one: the recovery
 *             from a wrong choice is in the data. At n = 3 it is 'search-check'.
 * - 'search-guess': 'search-check' where a three-number state below a larger one is not searched:
 *             the trace writes one path through it, the one whose last result is closest to the
 *             target (the target whenever the state has a solution), as two moves, and if it misses
 *             goes "back" and tries the next move above. Every move from the four numbers is tried in
 *             turn, each with its guess written out and checked by its own arithmetic, so the model
 *             solves Countdown-3 at a glance many times, and a wrong guess costs one try, not the
 *             problem. At n = 3 it is 'search-check'.
 * The searches try moves closest-first by default; with `searchOrder` 'listed' they try them in
 * the order the moves are listed instead (pairs left to right by position in the state, then
 * + * - /, as SoS enumerates them), so after a "back" the next try is the successor of the last one
 * written at that state, and the model need not rank every move nor remember which it has tried.
 * 'products-last' is the listed order with every product of two numbers ≥ 10 moved behind all the
 * other moves of its state: such products are the arithmetic small models get wrong, and the listed
 * order wrote one in 55 % of its Countdown-3 traces, mostly in branches it then abandoned.
 * With `rejectInexact` (listed and products-last orders) a search also writes, at the place ÷ has
 * in the listed order, every division of a pair that is not exact, as a rejected move "71/4 x", and
 * goes on: the decision "is this division exact?" is then written with both operands in view and
 * trained wherever the search passes a pair, instead of left to a quotient it may get wrong.
 * With `judgeLongProducts` (products-last order) a product of two numbers ≥ 10 whose state has no
 * solution is written "94*12 x" and not entered: the product (and the lines below it) is never
 * computed where it leads nowhere, and the judgement rests mostly on its size; a long product on the
 * way to a solution is still written out and entered.
 * And how numbers are written: 'plain' ("120") or 'reversed' (least significant digit first,
 * "021"), the order in which carries propagate. Reversing every run of digits is its own inverse,
 * so the checker reads a reversed text by reversing it again (`readNumbers`).
 */
import type { Example } from '../example.js';
import type { CountdownMeta } from './generate.js';
import { stepsToExpression } from './format.js';
import { formatStep, rat, sosMoves } from './rules.js';
import { sosFirstSolution } from './sos-dfs.js';

export type CountdownReasoning =
  'steps' | 'state' | 'search' | 'search-check' | 'search-judged' | 'search-guided' | 'search-guess';
export const COUNTDOWN_REASONING: readonly CountdownReasoning[] = [
  'steps',
  'state',
  'search',
  'search-check',
  'search-judged',
  'search-guided',
  'search-guess',
];
/** The reasonings written as a search trace (searchTrace). */
export const SEARCH_REASONING: readonly CountdownReasoning[] = [
  'search',
  'search-check',
  'search-judged',
  'search-guided',
  'search-guess',
];
/** Share of 'search-guided' traces whose top state first enters a move with no solution (a detour). */
export const GUIDED_DETOUR_SHARE = 0.25;
export type NumberFormat = 'plain' | 'reversed';
export const NUMBER_FORMATS: readonly NumberFormat[] = ['plain', 'reversed'];
/** The order a search trace tries the moves on a state in (see the module comment). */
export type SearchOrder = 'closest' | 'listed' | 'products-last';
export const SEARCH_ORDERS: readonly SearchOrder[] = ['closest', 'listed', 'products-last'];

export interface RenderOptions {
  reasoning: CountdownReasoning;
  numberFormat: NumberFormat;
  /** Dead ends a search trace shows before it returns to the start and writes the solution. */
  maxBacks: number;
  searchOrder: SearchOrder;
  /** Write each inexact division a search passes as a rejected move "a/b x" (listed and products-last orders); default false. */
  rejectInexact?: boolean;
  /** Write each long product with no solution below it as "a*b x", not entered (products-last order); default false. */
  judgeLongProducts?: boolean;
}

export const DEFAULT_RENDER_OPTIONS: RenderOptions = {
  reasoning: 'steps',
  numberFormat: 'plain',
  maxBacks: 4,
  searchOrder: 'closest',
  rejectInexact: false,
  judgeLongProducts: false,
};

/** Reverses every run of digits ("120+7" → "021+7"); applying it twice gives the text back. */
export function reverseDigitRuns(text: string): string {
  return text.replace(/\d+/g, (m) => [...m].reverse().join(''));
}

/** A model's text in plain digits, whatever the number format it was written in. */
export function readNumbers(text: string, format: NumberFormat | undefined): string {
  return format === 'reversed' ? reverseDigitRuns(text) : text;
}

/** Plain-digit text written in number format `format` (reversing digits is its own inverse). */
export function writeNumbers(text: string, format: NumberFormat | undefined): string {
  return readNumbers(text, format);
}

const state = (xs: readonly number[]) => `[${xs.join(' ')}]`;
const STEP_INTS = /^(\d+)([-+*/])(\d+)=(\d+)$/;

/** The 'state' lines of a solution given as SoS steps ("a op b=c", integers). */
export function stateLines(nums: readonly number[], steps: readonly string[]): string[] {
  let pool = [...nums];
  return steps.map((s) => {
    const m = STEP_INTS.exec(s);
    if (!m) throw new Error(`stateLines: cannot read step "${s}"`);
    for (const v of [Number(m[1]), Number(m[3])]) {
      const i = pool.indexOf(v);
      if (i < 0) throw new Error(`stateLines: ${v} in "${s}" is not available in ${state(pool)}`);
      pool.splice(i, 1);
    }
    pool = [Number(m[4]), ...pool];
    return `${s} ${state(pool)}`;
  });
}

interface Move {
  /** The step as the search writes it, "a op b=c [state]". */
  line: string;
  /** The bare step, "a op b=c". */
  step: string;
  next: number[];
  /** A division that is not exact, written "a/b x" and not entered (`rejectInexact`). */
  rejected?: true;
}

/** The mark after a move the search judges a dead end, or a division it rejects, without entering it. */
export const JUDGED_MARK = ' x';

/**
 * Every SoS move on a state in SoS order: pairs left to right by position, then + * - /; with
 * `rejectInexact` a pair whose division is not exact gets the rejected "hi/lo x" in ÷'s place.
 */
function listedMoves(xs: readonly number[], rejectInexact = false): Move[] {
  const out: Move[] = [];
  for (let i = 0; i < xs.length; i++) {
    for (let j = i + 1; j < xs.length; j++) {
      for (const [l, op, r, c] of sosMoves(xs[i], xs[j])) {
        const next = [c, ...xs.filter((_, k) => k !== i && k !== j)];
        const step = formatStep(rat(l), op, rat(r), rat(c));
        out.push({ line: `${step} ${state(next)}`, step, next });
      }
      const [hi, lo] = xs[i] >= xs[j] ? [xs[i], xs[j]] : [xs[j], xs[i]];
      if (rejectInexact && lo !== 0 && hi % lo !== 0)
        out.push({ line: `${hi}/${lo}${JUDGED_MARK}`, step: `${hi}/${lo}`, next: [], rejected: true });
    }
  }
  return out;
}

/**
 * Whether a step or trace line multiplies two numbers that both have two or more digits (≥ 10): the
 * arithmetic small models get wrong. Counting digits, it reads plain and reversed numbers alike.
 */
export function isLongProduct(line: string): boolean {
  return /^\d{2,}\*\d{2,}=/.test(line);
}

/** Whether a trace line is a long product judged a dead end without being computed, "94*12 x" (plain or reversed digits). */
export function isJudgedProduct(line: string): boolean {
  return /^\d+\*\d+ x$/.test(line);
}

/** The listed moves, every long product after all the others (each group keeps the listed order). */
function movesProductsLast(xs: readonly number[], rejectInexact: boolean): Move[] {
  const moves = listedMoves(xs, rejectInexact);
  return [...moves.filter((m) => !isLongProduct(m.step)), ...moves.filter((m) => isLongProduct(m.step))];
}

/** The moves a search tries on a state, in the order it tries them. */
function movesInOrder(xs: readonly number[], target: number, order: SearchOrder, rejectInexact: boolean): Move[] {
  if (order === 'listed') return listedMoves(xs, rejectInexact);
  if (order === 'products-last') return movesProductsLast(xs, rejectInexact);
  if (rejectInexact) throw new Error("searchTrace: rejectInexact needs the 'listed' or 'products-last' order");
  return movesByCloseness(xs, target);
}

/** Every SoS move on a state, closest result to the target first (ties: SoS order; the sort is stable). */
function movesByCloseness(xs: readonly number[], target: number): Move[] {
  return listedMoves(xs).sort((a, b) => Math.abs(a.next[0] - target) - Math.abs(b.next[0] - target));
}

export interface SearchOptions {
  /** Dead ends shown before the trace goes back to the start and writes the solution. */
  maxBacks: number;
  /** Write the closest move of every two-number dead end (the 'search-check' trace). */
  writeChecks: boolean;
  order: SearchOrder;
  /** Write a move from ≥ 4 numbers into an unsolvable three-number state with " x", not entered (the 'search-judged' trace). */
  judge?: boolean;
  /** Write each inexact division the search passes as "a/b x" (RenderOptions.rejectInexact). */
  rejectInexact?: boolean;
  /** Write each long product with no solution below it as "a*b x", not entered (RenderOptions.judgeLongProducts). */
  judgeLongProducts?: boolean;
  /** Enter only the first move with a solution from a state of ≥ 4 numbers (the 'search-guided' trace). */
  guided?: boolean;
  /** Write one path, the closest, through each three-number state below a larger one (the 'search-guess' trace). */
  guess?: boolean;
}

/** A number in [0, 1) that depends only on the instance (FNV-1a over its numbers, target and a salt). */
function instanceUniform(nums: readonly number[], target: number, salt: string): number {
  let h = 0x811c9dc5;
  for (const ch of `${nums.join(',')}>${target}#${salt}`) h = Math.imul(h ^ ch.charCodeAt(0), 0x01000193) >>> 0;
  return h / 2 ** 32;
}

/**
 * The 'search' lines for one instance (solvable under SoS rules; `solution` is its SoS steps), and
 * the solution they end on as bare steps: the path the search found, which is often not SoS's
 * first solution (the search tries the closest result first), or SoS's when the budget ran out.
 * With `writeChecks` (the 'search-check' trace) a two-number dead end also shows its closest move.
 */
export function searchTrace(
  nums: readonly number[],
  target: number,
  solution: readonly string[],
  {
    maxBacks,
    writeChecks,
    order,
    judge = false,
    rejectInexact = false,
    judgeLongProducts = false,
    guided = false,
    guess = false,
  }: SearchOptions,
): { lines: string[]; solution: string[]; outOfBudget: boolean } {
  if (judgeLongProducts && order !== 'products-last')
    throw new Error("searchTrace: judgeLongProducts needs the 'products-last' order");
  const lines: string[] = [];
  const path: string[] = []; // bare steps from the start to the current state
  let backs = 0;
  let exhaustive = false; // inside a guided detour: searched to its end, whatever the budget
  /** true: solved; false: no solution below this state; 'budget': out of dead ends. */
  const dfs = (xs: number[]): boolean | 'budget' => {
    if (xs.length === 1) return xs[0] === target;
    if (xs.length === 2) {
      const closest = movesByCloseness(xs, target)[0]; // the target itself when any move reaches it
      const hit = closest.next[0] === target;
      if (hit || writeChecks) lines.push(closest.line);
      if (hit) path.push(closest.step);
      return hit;
    }
    if (guided && xs.length >= 4) return guidedMove(xs);
    if (guess && xs.length === 3 && nums.length >= 4) return guessedPath(xs);
    let left = false; // the last try entered a state below this one and came back empty
    for (const m of movesInOrder(xs, target, order, rejectInexact)) {
      if (left) {
        if (backs >= maxBacks && !exhaustive) return 'budget';
        backs++;
        lines.push(`back ${state(xs)}`);
        left = false;
      }
      if (m.rejected) {
        lines.push(m.line);
        continue;
      }
      if (judge && xs.length >= 4 && m.next.length === 3 && sosFirstSolution(m.next, target) === null) {
        lines.push(m.line + JUDGED_MARK);
        continue;
      }
      if (judgeLongProducts && isLongProduct(m.step) && sosFirstSolution(m.next, target) === null) {
        lines.push(m.step.slice(0, m.step.indexOf('=')) + JUDGED_MARK); // "94*12 x"
        continue;
      }
      lines.push(m.line);
      path.push(m.step);
      const r = dfs(m.next);
      if (r !== false) return r;
      path.pop();
      left = true;
    }
    return false;
  };
  /** A guided state: (at the top, sometimes) a detour searched to its end, then the first move with a solution. */
  const guidedMove = (xs: number[]): boolean | 'budget' => {
    const moves = movesInOrder(xs, target, order, false);
    const solvable = moves.map((m) => sosFirstSolution(m.next, target) !== null);
    const good = moves.find((_, i) => solvable[i]);
    if (!good) return false;
    // A long product is judged at a glance where judgeLongProducts is on, never searched as a detour.
    const dead = moves.filter((m, i) => !solvable[i] && !(judgeLongProducts && isLongProduct(m.step)));
    if (xs.length === nums.length && dead.length > 0 && instanceUniform(nums, target, 'detour') < GUIDED_DETOUR_SHARE) {
      const detour = dead[Math.floor(instanceUniform(nums, target, 'which') * dead.length)];
      lines.push(detour.line);
      const budgetLeft = backs;
      exhaustive = true;
      dfs(detour.next); // false: it has no solution
      [exhaustive, backs] = [false, budgetLeft]; // the detour's dead ends do not spend the budget
      lines.push(`back ${state(xs)}`);
    }
    lines.push(good.line);
    path.push(good.step);
    return dfs(good.next);
  };
  /** A guessed three-number state: the move whose two-number state ends closest to the target, entered and checked. */
  const guessedPath = (xs: number[]): boolean => {
    const moves = movesInOrder(xs, target, order, false);
    const misses = moves.map((m) => Math.abs(movesByCloseness(m.next, target)[0].next[0] - target));
    const best = moves[misses.indexOf(Math.min(...misses))]; // ties: the first
    lines.push(best.line);
    path.push(best.step);
    if (dfs(best.next) === true) return true;
    path.pop();
    return false;
  };
  const r = dfs([...nums]);
  if (r === true) return { lines, solution: path, outOfBudget: false };
  // Out of budget (or, for n ≤ 2, nothing to search): back to the start, then the solution.
  if (lines.length > 0) lines.push(`back ${state(nums)}`);
  return { lines: [...lines, ...stateLines(nums, solution)], solution: [...solution], outOfBudget: r === 'budget' };
}

/** How `o.reasoning` is searched (a search reasoning, SEARCH_REASONING). */
export function searchOptionsOf(o: RenderOptions): SearchOptions {
  return {
    maxBacks: o.maxBacks,
    writeChecks: o.reasoning !== 'search',
    order: o.searchOrder,
    judge: o.reasoning === 'search-judged',
    rejectInexact: o.rejectInexact,
    judgeLongProducts: o.judgeLongProducts,
    guided: o.reasoning === 'search-guided',
    guess: o.reasoning === 'search-guess',
  };
}

/**
 * The example with its steps written in `o.reasoning` and every number in `o.numberFormat`; meta records
 * both, and for a search whether it ran out of its budget of dead ends (`outOfBudget`).
 */
export function renderCountdown(ex: Example, o: RenderOptions): Example {
  const m = ex.meta as CountdownMeta;
  const search = SEARCH_REASONING.includes(o.reasoning)
    ? searchTrace(m.nums, m.target, ex.steps, searchOptionsOf(o))
    : undefined;
  const steps = search ? search.lines : o.reasoning === 'state' ? stateLines(m.nums, ex.steps) : ex.steps;
  // A search ends on the path it found, so its answer is that path's expression, not SoS's.
  const answer = search ? stepsToExpression(m.nums, search.solution) : ex.answer;
  const fmt = (t: string) => writeNumbers(t, o.numberFormat);
  return {
    ...ex,
    question: fmt(ex.question),
    steps: steps.map(fmt),
    answer: fmt(answer),
    meta: {
      ...m,
      reasoning: o.reasoning,
      numberFormat: o.numberFormat,
      ...(search ? { outOfBudget: search.outOfBudget } : {}),
    },
  };
}
