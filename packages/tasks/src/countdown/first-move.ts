/**
 * The first move of a written Countdown search, against the starting numbers: whether the first
 * move it enters ("a op b=c [..]", not a line marked " x") leads to a state with an SoS solution,
 * how often the chain is right after a solvable and after a dead first move, and two baselines
 * that judge nothing: the first SoS move listed (the first pair's sum) and a move drawn uniformly
 * from every SoS move on the starting numbers. Also how many chains go `back` to a state of as many
 * numbers as the start, and how many of those name the starting numbers right.
 * Lines are in plain digits. A move whose numbers are not among the starting ones, or whose
 * arithmetic is wrong, counts as neither solvable nor dead ("unread").
 */
import { sosMoves } from './rules.js';
import { sosFirstSolution } from './sos-dfs.js';
import { pct } from './percent.js';
import { applyMove, startTries } from './start-tries.js';

/** A question's starting numbers and target. */
export interface CountdownStart {
  nums: number[];
  target: number;
}

export interface FirstMoveStats {
  /** Chains whose question is known. */
  chains: number;
  /** First entered move into a state with a solution, and of those the right answers. */
  solvable: number;
  solvableRight: number;
  /** First entered move into a state without one, and of those the right answers. */
  dead: number;
  deadRight: number;
  /** No entered move, or one that does not apply to the starting numbers. */
  unread: number;
  /** Questions whose first listed SoS move is solvable. */
  listedSolvable: number;
  /** The expected count of solvable first moves drawn uniformly from the SoS moves (a sum of shares). */
  randomSolvable: number;
  /** Chains with a `back` to as many numbers as the start, and of those the ones that name the start. */
  backsToStart: number;
  backsToStartRight: number;
}

export const emptyFirstMoveStats = (): FirstMoveStats => ({
  chains: 0,
  solvable: 0,
  solvableRight: 0,
  dead: 0,
  deadRight: 0,
  unread: 0,
  listedSolvable: 0,
  randomSolvable: 0,
  backsToStart: 0,
  backsToStartRight: 0,
});

const sameNumbers = (a: readonly number[], b: readonly number[]) =>
  a.length === b.length && [...a].sort((x, y) => x - y).join(' ') === [...b].sort((x, y) => x - y).join(' ');

/** The state after the first entered move, from the starting numbers (its stated state ignored), or null when it does not apply. */
function afterFirstMove(start: CountdownStart, lines: readonly string[]): number[] | null {
  const first = startTries(start, lines)[0];
  return first?.move.right ? applyMove(start.nums, first.move) : null;
}

/** Every SoS move on the starting numbers, in listed order (pairs left to right, then + * - /): whether each leads to a solvable state. */
function startMovesSolvable(start: CountdownStart): boolean[] {
  const { nums, target } = start;
  const out: boolean[] = [];
  for (let i = 0; i < nums.length; i++)
    for (let j = i + 1; j < nums.length; j++)
      for (const [, , , c] of sosMoves(nums[i], nums[j]))
        out.push(sosFirstSolution([c, ...nums.filter((_, k) => k !== i && k !== j)], target) !== null);
  return out;
}

/** Adds one chain (its reasoning lines, whether its answer is right) to `s`. */
export function countFirstMove(s: FirstMoveStats, start: CountdownStart, lines: readonly string[], correct: boolean) {
  s.chains++;
  const after = afterFirstMove(start, lines);
  if (!after) s.unread++;
  else if (sosFirstSolution(after, start.target) !== null) {
    s.solvable++;
    if (correct) s.solvableRight++;
  } else {
    s.dead++;
    if (correct) s.deadRight++;
  }
  const moves = startMovesSolvable(start);
  if (moves[0]) s.listedSolvable++;
  s.randomSolvable += moves.filter(Boolean).length / Math.max(1, moves.length);
  const back = lines
    .map((l) => /^back \[([\d ]*)\]$/.exec(l))
    .find((b) => b !== null && b[1].trim().split(/\s+/).length === start.nums.length);
  if (back) {
    s.backsToStart++;
    if (sameNumbers(back[1].trim().split(/\s+/).map(Number), start.nums)) s.backsToStartRight++;
  }
}

/** Two readable lines; none when no chain's question is known. */
export function formatFirstMoveStats(s: FirstMoveStats): string[] {
  if (s.chains === 0) return [];
  return [
    `  first move into a solvable state: ${s.solvable} of ${s.chains} (${pct(s.solvable, s.chains)}; then right ${pct(s.solvableRight, s.solvable)}), ` +
      `dead ${s.dead} (then right ${pct(s.deadRight, s.dead)}), unread ${s.unread}; ` +
      `judging nothing: the first listed move ${pct(s.listedSolvable, s.chains)}, a random move ${pct(s.randomSolvable, s.chains)}`,
    `  back to ${s.backsToStart} start-sized states, naming the starting numbers in ${s.backsToStartRight} (${pct(s.backsToStartRight, s.backsToStart)})`,
  ];
}
