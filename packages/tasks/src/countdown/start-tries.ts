/**
 * Every try a written Countdown search makes from its starting numbers, not only the first
 * (first-move.ts): a try is an entered move on the starting numbers ("a op b=c [..]", at the top of
 * the trace or right after a `back` to a start-sized state) and every line after it up to the next
 * such `back` or the end. Each try is judged by the state its move leads to from the starting
 * numbers, solvable (it has an SoS solution) or dead, and by how it ends: its last entered line
 * reaches the target with every entered line right on the numbers it had (a hit), reaches it with
 * a wrong line among them (a false hit: the chain wrote a target it had not reached), or ends
 * elsewhere (a miss). From a dead state only false hits and misses are possible (a hit would need a
 * `back` naming numbers the try never had). In a guessing search (reasoning 'search-guess') each
 * try is one guessed path through a three-number state, so the solvable tries' hits measure how
 * well the model sees a Countdown-3 at a glance, and the dead tries' false hits how often it makes
 * the target up. Lines are in plain digits; a move that does not apply to the starting numbers, or
 * whose own arithmetic is wrong, counts as unread.
 */
import { sosMoves } from './rules.js';
import { pct } from './percent.js';
import { sosSolutionCount } from './sos-dfs.js';
import type { CountdownStart } from './first-move.js';

export interface TryOutcomes {
  tries: number;
  hit: number;
  falseHit: number;
  miss: number;
}

export interface StartTryStats {
  /** Chains whose question is known. */
  chains: number;
  /** Tries into a state with a solution, and into one without. */
  solvable: TryOutcomes;
  dead: TryOutcomes;
  /** Tries whose move does not apply to the starting numbers or is wrong. */
  unread: number;
  /**
   * The solvable tries by their place among the chain's tries (TRY_PLACES), and their hits, each
   * move's first try only (a repeat re-reads a state the chain already missed): all of them
   * ('all'), and by how many SoS move sequences solve the state ('1', '2-3', '4+':
   * sosSolutionCount), since a late try is more often a state with a single solution.
   */
  solvableByPlace: Record<string, { tries: number; hit: number }[]>;
  /** Solvable tries whose move an earlier try of the chain already made (left out of solvableByPlace), and their hits. */
  solvableRepeats: { tries: number; hit: number };
}

/** Places of a try among its chain's tries, from 1: each bucket's first place (the last runs on). */
export const TRY_PLACES = [1, 2, 3, 4, 7, 11];
const placeBucket = (place: number) => TRY_PLACES.findLastIndex((first) => place >= first);
const placeName = (i: number) =>
  i === TRY_PLACES.length - 1
    ? `${TRY_PLACES[i]}+`
    : TRY_PLACES[i + 1] - TRY_PLACES[i] === 1
      ? `${TRY_PLACES[i]}`
      : `${TRY_PLACES[i]}-${TRY_PLACES[i + 1] - 1}`;

const emptyOutcomes = (): TryOutcomes => ({ tries: 0, hit: 0, falseHit: 0, miss: 0 });
export const emptyStartTryStats = (): StartTryStats => ({
  chains: 0,
  solvable: emptyOutcomes(),
  dead: emptyOutcomes(),
  unread: 0,
  solvableByPlace: {},
  solvableRepeats: { tries: 0, hit: 0 },
});
const emptyPlaces = () => TRY_PLACES.map(() => ({ tries: 0, hit: 0 }));

const ENTERED = /^(\d+)([-+*/])(\d+)=(\d+) \[[\d ]*\]$/;
const BACK = /^back \[([\d ]*)\]$/;

export interface Entered {
  a: number;
  op: string;
  b: number;
  c: number;
  right: boolean;
}

function entered(line: string): Entered | null {
  const m = ENTERED.exec(line);
  if (!m) return null;
  const [a, op, b, c] = [Number(m[1]), m[2], Number(m[3]), Number(m[4])];
  return { a, op, b, c, right: sosMoves(a, b).some(([l, o, r, v]) => l === a && o === op && r === b && v === c) };
}

/** A line of a try after its move: an entered move, or a `back` to a state other than the start's. */
export type TryLine = { entered: Entered } | { back: number[] };

/** The tries of one chain: each its move on the start and the lines after it. */
export function startTries(start: CountdownStart, lines: readonly string[]): { move: Entered; rest: TryLine[] }[] {
  const tries: { move: Entered; rest: TryLine[] }[] = [];
  let atStart = true;
  for (const line of lines) {
    const back = BACK.exec(line);
    if (back) {
      const state = back[1].trim().split(/\s+/).map(Number);
      atStart = state.length === start.nums.length;
      if (!atStart) tries.at(-1)?.rest.push({ back: state });
      continue;
    }
    const e = entered(line);
    if (!e) continue;
    if (atStart) tries.push({ move: e, rest: [] });
    else tries.at(-1)?.rest.push({ entered: e });
    atStart = false;
  }
  return tries;
}

/** `state` less a and b plus c when a and b are in it (b another copy when a = b), else null. */
export function applyMove(state: readonly number[], e: Entered): number[] | null {
  const ia = state.indexOf(e.a);
  const ib = state.findIndex((x, k) => x === e.b && k !== ia);
  if (ia < 0 || ib < 0) return null;
  return [e.c, ...state.filter((_, k) => k !== ia && k !== ib)];
}

/**
 * How a try from `after` (the state its move led to) ends: 'hit' when its last entered line
 * reaches the target and every entered line was right on the numbers it had (a `back` inside the
 * try resets them to the state it names), 'falseHit' when it reaches the target otherwise, else
 * 'miss'. A try with no line after its move reaches the target when its move did.
 */
function tryOutcome(after: number[], rest: readonly TryLine[], target: number): 'hit' | 'falseHit' | 'miss' {
  let state: number[] = after;
  let sound = true;
  let last = after.length === 1 ? after[0] : NaN;
  for (const l of rest) {
    if ('back' in l) {
      state = l.back;
      continue;
    }
    const next = l.entered.right ? applyMove(state, l.entered) : null;
    if (!next) sound = false;
    state = next ?? state;
    last = l.entered.c;
  }
  if (last !== target) return 'miss';
  return sound ? 'hit' : 'falseHit';
}

/**
 * The state the last try's move leads to from the starting numbers — in a guessing search's own
 * trace, the three-number state it solves — or null when the chain has no try or its last move
 * does not apply.
 */
export function solvedState(start: CountdownStart, lines: readonly string[]): number[] | null {
  const last = startTries(start, lines).at(-1);
  return last && last.move.right ? applyMove(start.nums, last.move) : null;
}

/** Adds one chain's tries to `s`. */
export function countStartTries(s: StartTryStats, start: CountdownStart, lines: readonly string[]): void {
  s.chains++;
  const made = new Set<string>();
  startTries(start, lines).forEach((t, i) => {
    const move = `${t.move.a}${t.move.op}${t.move.b}=${t.move.c}`;
    const repeat = made.has(move);
    made.add(move);
    const after = t.move.right ? applyMove(start.nums, t.move) : null;
    if (!after) {
      s.unread++;
      return;
    }
    const paths = sosSolutionCount(after, start.target);
    const solvable = paths > 0;
    const o = solvable ? s.solvable : s.dead;
    const outcome = tryOutcome(after, t.rest, start.target);
    o.tries++;
    o[outcome]++;
    if (!solvable) return;
    if (repeat) {
      s.solvableRepeats.tries++;
      if (outcome === 'hit') s.solvableRepeats.hit++;
      return;
    }
    for (const key of ['all', paths === 1 ? '1' : paths <= 3 ? '2-3' : '4+']) {
      const p = (s.solvableByPlace[key] ??= emptyPlaces())[placeBucket(i + 1)];
      p.tries++;
      if (outcome === 'hit') p.hit++;
    }
  });
}

const outcomes = (o: TryOutcomes) =>
  `hit ${pct(o.hit, o.tries)}, false hit ${pct(o.falseHit, o.tries)}, missed ${pct(o.miss, o.tries)}`;

const SOLUTION_KEYS = ['all', '1', '2-3', '4+'];
const formatPlaces = (places: { tries: number; hit: number }[]) =>
  places.map((p, i) => `${placeName(i)} ${p.tries ? `${pct(p.hit, p.tries)} of ${p.tries}` : '–'}`).join(', ');

/** Readable lines: the outcomes, then the solvable tries' hits by place (all, then by the state's solutions); none when no chain's question is known or no try was read. */
export function formatStartTryStats(s: StartTryStats): string[] {
  const read = s.solvable.tries + s.dead.tries;
  if (s.chains === 0 || read + s.unread === 0) return [];
  return [
    `  tries from the start: ${read + s.unread} (${((read + s.unread) / s.chains).toFixed(1)} a chain); ` +
      `into a solvable state ${s.solvable.tries}: ${outcomes(s.solvable)}; ` +
      `into a dead state ${s.dead.tries}: ${outcomes(s.dead)}; unread ${s.unread}`,
    `  solvable tries repeating an earlier try's move: ${s.solvableRepeats.tries} (hit ${pct(s.solvableRepeats.hit, s.solvableRepeats.tries)}); the others by place:`,
    ...Object.entries(s.solvableByPlace)
      .sort(([a], [b]) => SOLUTION_KEYS.indexOf(a) - SOLUTION_KEYS.indexOf(b))
      .map(
        ([key, places]) =>
          `    hit ${key === 'all' ? "by their place among the chain's tries" : `into states of ${key} solution${key === '1' ? '' : 's'}`}: ${formatPlaces(places)}`,
      ),
  ];
}
