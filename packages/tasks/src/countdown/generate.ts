/**
 * Countdown generator with Stream-of-Search rules (docs/datasets.md §8.1, described from
 * kanishkg/stream-of-search, not copied):
 * - targets are the integers 10..maxTarget (91 values), shuffled with a seed; the first
 *   ⌊91/10⌋ = 9 are held out (split 'val_target'), the other 82 are train targets. The target
 *   shuffle has its own seed so every n and split shares the same held-out targets;
 * - per instance the target is drawn uniformly from the split's targets, then n numbers
 *   uniform in 1..maxTarget−1 (with replacement) are redrawn as a whole until the SoS
 *   depth-first search finds a solution (solvable instances only);
 * - steps = that first solution ("a op b=c"), answer = the equivalent single expression;
 * - 'val' instances are redrawn while their solution equals one in `avoidSolutions` (the train set's).
 */
import { Rng } from '@telepath/core';
import type { Example } from '../example.js';
import { countdownQuestion, stepsToExpression } from './format.js';
import { sosFirstSolution } from './sos-dfs.js';

export type CountdownSplit = 'train' | 'val' | 'val_target';
export const COUNTDOWN_SPLITS: readonly CountdownSplit[] = ['train', 'val', 'val_target'];

export interface CountdownGenConfig {
  minTarget: number;
  maxTarget: number;
  /** Share of the targets held out ('val_target'). */
  heldOutShare: number;
  /** Seed of the target shuffle (shared by every n and split). */
  targetSeed: number;
}

export const DEFAULT_COUNTDOWN_GEN_CONFIG: CountdownGenConfig = {
  minTarget: 10, // SoS countdown_generate: targets from 10
  maxTarget: 100, // SoS: --max_target 100; numbers in 1..max_target − 1
  heldOutShare: 0.1, // SoS: the first tenth of the shuffled targets is val_target (⌊91/10⌋ = 9)
  targetSeed: 0, // chosen: Telepath's own seed (SoS's Python shuffle is not reproduced)
};

/** Bump when the generator's output for a given seed changes. */
export const COUNTDOWN_GENERATOR_VERSION = 1;

/** Metadata every Countdown example carries. */
export interface CountdownMeta {
  nums: number[];
  target: number;
  rules: 'sos' | 'all-numbers';
  /** Set by renderCountdown for a search trace: it ran out of its budget of dead ends. */
  outOfBudget?: boolean;
  [k: string]: unknown;
}

export function countdownTargets(cfg: CountdownGenConfig = DEFAULT_COUNTDOWN_GEN_CONFIG): {
  train: number[];
  heldOut: number[];
} {
  const all = Array.from({ length: cfg.maxTarget - cfg.minTarget + 1 }, (_, i) => cfg.minTarget + i);
  new Rng(cfg.targetSeed).fork('countdown-targets').shuffle(all);
  const k = Math.floor(all.length * cfg.heldOutShare);
  return { heldOut: all.slice(0, k).sort((a, b) => a - b), train: all.slice(k).sort((a, b) => a - b) };
}

export interface GenerateCountdownOptions {
  /** How many numbers per instance (3..6 in Telepath). */
  n: number;
  count: number;
  seed: number;
  split: CountdownSplit;
  config?: CountdownGenConfig;
  /** Solutions (steps joined by ", ") that 'val' instances must not repeat. */
  avoidSolutions?: ReadonlySet<string>;
}

/** The numbers per instance the generator supports. */
export const COUNTDOWN_MIN_N = 2;
export const COUNTDOWN_MAX_N = 6;

export function isCountdownSize(n: unknown): n is number {
  return Number.isInteger(n) && (n as number) >= COUNTDOWN_MIN_N && (n as number) <= COUNTDOWN_MAX_N;
}

/** Solvable SoS instances as Examples (meta: nums, target, n, split, rules 'sos'). */
export function generateCountdown(o: GenerateCountdownOptions): Example[] {
  if (!isCountdownSize(o.n))
    throw new Error(`generateCountdown: n must be an integer in ${COUNTDOWN_MIN_N}..${COUNTDOWN_MAX_N}, got ${o.n}`);
  const cfg = o.config ?? DEFAULT_COUNTDOWN_GEN_CONFIG;
  const { train, heldOut } = countdownTargets(cfg);
  const targets = o.split === 'val_target' ? heldOut : train;
  const rng = new Rng(o.seed).fork(`countdown/n${o.n}/${o.split}`);
  const avoid = o.split === 'val' ? o.avoidSolutions : undefined;
  return Array.from({ length: o.count }, (_, i) =>
    drawCountdownInstance(rng, o.n, targets, cfg, avoid, `countdown/n${o.n}/${o.split}/${i}`, o.split),
  );
}

/**
 * One solvable instance drawn with `rng`: a target from `targets`, then n numbers redrawn as a
 * whole until the SoS search solves them (and the solution is not in `avoid`).
 */
export function drawCountdownInstance(
  rng: Rng,
  n: number,
  targets: readonly number[],
  cfg: CountdownGenConfig,
  avoid: ReadonlySet<string> | undefined,
  id: string,
  split: CountdownSplit,
): Example {
  const target = rng.pick(targets);
  for (let attempt = 1; ; attempt++) {
    if (attempt > 1_000_000)
      throw new Error(`generateCountdown: no solvable instance for target ${target} after ${attempt} draws`);
    const nums = Array.from({ length: n }, () => 1 + rng.int(cfg.maxTarget - 1));
    const steps = sosFirstSolution(nums, target);
    if (!steps) continue;
    if (avoid?.has(steps.join(', '))) continue;
    const meta: CountdownMeta = { nums, target, rules: 'sos', n, split };
    return { id, question: countdownQuestion(nums, target), steps, answer: stepsToExpression(nums, steps), meta };
  }
}

/** Telepath's default Countdown split sizes per n (chosen; SoS uses 500,000 / 1,000 / 1,000, docs/datasets.md §8.1). */
export const DEFAULT_COUNTDOWN_SIZES: Record<CountdownSplit, number> = { train: 1_000, val: 1_000, val_target: 1_000 };

/** The three splits for one n: train, then val avoiding train's solutions, then val_target. */
export function generateCountdownSplits(
  n: number,
  seed: number,
  sizes: Record<CountdownSplit, number> = DEFAULT_COUNTDOWN_SIZES,
): Record<CountdownSplit, Example[]> {
  const train = generateCountdown({ n, count: sizes.train, seed, split: 'train' });
  const avoidSolutions = new Set(train.map((e) => e.steps.join(', ')));
  return {
    train,
    val: generateCountdown({ n, count: sizes.val, seed, split: 'val', avoidSolutions }),
    val_target: generateCountdown({ n, count: sizes.val_target, seed, split: 'val_target' }),
  };
}
