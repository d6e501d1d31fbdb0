/**
 * Heuristic baselines: fixed rules that answer a task's questions without a model, from the
 * problem's structure (ProsQA's graph and options, Countdown's numbers and target). The lab runs
 * them as arms (`"method": "heuristic"`) so every table shows what a trivial rule scores.
 * - ProsQA: `less-mentioned` (the option with fewer facts in the question), `first-listed`,
 *   `chance` (either option, uniformly, from the Rng).
 * - Countdown: `sum` (all numbers added), `greedy` (repeatedly the pair and operation whose
 *   result is closest to the target, Stream-of-Search moves only, until one number is left).
 * - GSM8K: `last-number` (the last number of the question).
 */
import type { Rng } from '@telepath/core';
import type { Example, TaskName } from './example.js';
import type { CountdownMeta } from './countdown/generate.js';
import { stepsToExpression } from './countdown/format.js';
import { writeNumbers, type NumberFormat } from './countdown/reasoning.js';
import { sosMoves } from './countdown/rules.js';
import { lessMentionedOption, prosqaAnswerFor, prosqaOptions } from './prosqa/options.js';

export interface HeuristicAnswer {
  /** The answer, as a model would write it after `###`. */
  answer: string;
  /** The written chain the rule followed (one step per entry); [] when it writes none. */
  chain: string[];
}

export interface Heuristic {
  name: string;
  description: string;
  answer(ex: Example, rng: Rng): HeuristicAnswer;
}

function countdownMeta(ex: Example): CountdownMeta {
  const m = ex.meta as CountdownMeta | undefined;
  if (!m || !Array.isArray(m.nums) || typeof m.target !== 'number')
    throw new Error(`${ex.id}: not a Countdown example (meta.nums / meta.target missing)`);
  return m;
}

/** Steps "a+b=c" adding every number in the given order. */
export function countdownSum(nums: readonly number[]): HeuristicAnswer {
  const chain: string[] = [];
  let acc = nums[0];
  for (const x of nums.slice(1)) {
    chain.push(`${acc}+${x}=${acc + x}`);
    acc += x;
  }
  return { answer: nums.join('+'), chain };
}

/** The greedy fold: at each step the (pair, move) whose result is nearest the target; ties go to the first found. */
export function countdownGreedy(nums: readonly number[], target: number): HeuristicAnswer {
  const pool = [...nums];
  const chain: string[] = [];
  while (pool.length > 1) {
    let best: { i: number; j: number; step: string; value: number } | null = null;
    for (let i = 0; i < pool.length; i++) {
      for (let j = i + 1; j < pool.length; j++) {
        for (const [l, op, r, value] of sosMoves(pool[i], pool[j])) {
          if (!best || Math.abs(value - target) < Math.abs(best.value - target))
            best = { i, j, step: `${l}${op}${r}=${value}`, value };
        }
      }
    }
    pool.splice(best!.j, 1);
    pool.splice(best!.i, 1);
    pool.push(best!.value);
    chain.push(best!.step);
  }
  return { answer: chain.length ? stepsToExpression(nums, chain) : String(nums[0]), chain };
}

const PROSQA: Heuristic[] = [
  {
    name: 'less-mentioned',
    description: 'the option the question mentions in fewer facts (first-listed on a tie)',
    answer: (ex) => ({ answer: prosqaAnswerFor(ex, lessMentionedOption(prosqaOptions(ex))), chain: [] }),
  },
  {
    name: 'first-listed',
    description: 'the option the question lists first',
    answer: (ex) => ({ answer: prosqaAnswerFor(ex, prosqaOptions(ex).order[0]), chain: [] }),
  },
  {
    name: 'chance',
    description: 'either option, uniformly at random',
    answer: (ex, rng) => ({ answer: prosqaAnswerFor(ex, prosqaOptions(ex).order[rng.int(2)]), chain: [] }),
  },
];

/**
 * A Countdown rule's answer written in the example's number format: meta holds the plain numbers,
 * and the checker reads a reversed-digit example's answer back from reversed digits.
 */
function inExampleFormat(ex: Example, a: HeuristicAnswer): HeuristicAnswer {
  const write = (t: string) => writeNumbers(t, countdownMeta(ex).numberFormat as NumberFormat | undefined);
  return { answer: write(a.answer), chain: a.chain.map(write) };
}

const COUNTDOWN: Heuristic[] = [
  {
    name: 'sum',
    description: 'every number added, in the given order',
    answer: (ex) => inExampleFormat(ex, countdownSum(countdownMeta(ex).nums)),
  },
  {
    name: 'greedy',
    description: 'repeatedly the pair and move nearest the target (no search)',
    answer: (ex) => inExampleFormat(ex, countdownGreedy(countdownMeta(ex).nums, countdownMeta(ex).target)),
  },
];

const GSM8K: Heuristic[] = [
  {
    name: 'last-number',
    description: 'the last number in the question',
    answer: (ex) => ({
      answer: /(\d[\d,]*(?:\.\d+)?)(?!.*\d)/s.exec(ex.question)?.[1].replace(/,/g, '') ?? '0',
      chain: [],
    }),
  },
];

/** The heuristics of a task, by name (a literal table; tasks without any give {}). */
export function taskHeuristics(task: TaskName): Record<string, Heuristic> {
  const list = task === 'prosqa' ? PROSQA : task === 'countdown' ? COUNTDOWN : task === 'gsm8k' ? GSM8K : [];
  return Object.fromEntries(list.map((h) => [h.name, h]));
}
