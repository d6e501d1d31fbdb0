/**
 * The checker of written Countdown reasoning in every format of reasoning.ts: plain steps
 * "a op b=c", steps that state what remains "a op b=c [x y]", and search traces that also go
 * "back [s]". Sound means: every step uses numbers available in the current state with arithmetic
 * that is right and allowed by the rules; every stated state equals the real one (as a multiset);
 * every "back" names a state on the current path; every move marked " x" (judged, not entered:
 * 'search-judged') leads to a state with no SoS solution; every rejected division "a/b x"
 * (`rejectInexact`) divides two numbers of the current state and is not exact; every judged product
 * "a*b x" (`judgeLongProducts`) multiplies two numbers of the current state into a state with no
 * SoS solution; and the last state is the target alone.
 * Without brackets and backs this is exactly verifySteps.
 */
import { rat, ratEq, ratKey, STEP_VALUE, type CountdownRules, type Rational } from './rules.js';
import { sosFirstSolution } from './sos-dfs.js';
import { applyStep, parseNumber, take, verifySteps, type Verdict } from './verify.js';

const BRACKET = String.raw`\[([^\]]*)\]`;
const STATED_STEP = new RegExp(String.raw`^(.*?=\s*(?:${STEP_VALUE}))\s*${BRACKET}\s*$`);
const BACK = new RegExp(String.raw`^back\s*${BRACKET}\s*$`);
const JUDGED = /^(.*\])\s+x\s*$/;
const REJECTED = /^([0-9]+)\s*([/*])\s*([0-9]+)\s+x\s*$/;

/** A move marked rejected without a result: a division "a/b x" (`rejectInexact`) or a product "a*b x" (`judgeLongProducts`). */
export interface Rejection {
  a: number;
  op: '/' | '*';
  b: number;
}

/** The rejection a trace line writes (plain digits, spaces allowed around the sign), or null for any other line. */
export function readRejection(line: string): Rejection | null {
  const m = REJECTED.exec(line.trim());
  return m ? { a: Number(m[1]), op: m[2] as Rejection['op'], b: Number(m[3]) } : null;
}

const fail = (reason: Verdict['reason'], detail: string): Verdict => ({ ok: false, reason, detail });

function readState(text: string): Rational[] | null {
  const parts = text
    .trim()
    .split(/\s+/)
    .filter((p) => p !== '');
  const out = parts.map(parseNumber);
  return out.every((x): x is Rational => x !== null) ? out : null;
}

function sameMultiset(a: readonly Rational[], b: readonly Rational[]): boolean {
  if (a.length !== b.length) return false;
  const key = (xs: readonly Rational[]) => xs.map(ratKey).sort().join(' ');
  return key(a) === key(b);
}

/** Checks written reasoning lines (any format of reasoning.ts) against the numbers and the target. */
export function verifyTrace(
  nums: readonly number[],
  target: number,
  lines: readonly string[],
  rules: CountdownRules,
): Verdict {
  if (!lines.some((l) => l.includes('[') || BACK.test(l))) return verifySteps(nums, target, lines, rules);
  const path: Rational[][] = [nums.map((x) => rat(x))];
  for (const [i, line] of lines.entries()) {
    const back = BACK.exec(line);
    if (back) {
      const s = readState(back[1]);
      const k = s ? path.findLastIndex((p) => sameMultiset(p, s)) : -1;
      if (k < 0) return fail('wrong-state', `step ${i + 1} ${JSON.stringify(line)}: not a state on the current path`);
      path.length = k + 1;
      continue;
    }
    const rejected = readRejection(line);
    if (rejected) {
      const { a, op, b } = rejected;
      const state = path[path.length - 1];
      const wrong = op === '/' ? rejectedWrongly(state, a, b) : productJudgedWrongly(state, a, b, target, rules);
      if (wrong) return fail(wrong[0], `step ${i + 1} ${JSON.stringify(line)}: ${wrong[1]}`);
      continue; // rejected, not entered
    }
    const judged = JUDGED.exec(line);
    const m = STATED_STEP.exec(judged ? judged[1] : line);
    const pool = [...path[path.length - 1]];
    const wrong = applyStep(pool, m ? m[1] : line, i, rules);
    if (wrong) return wrong;
    const after = [pool[pool.length - 1], ...pool.slice(0, -1)]; // the new result first, as reasoning.ts writes it
    if (m) {
      const stated = readState(m[2]);
      if (!stated || !sameMultiset(stated, after))
        return fail(
          'wrong-state',
          `step ${i + 1} ${JSON.stringify(line)}: states [${m[2]}], the numbers left are [${after.map(ratKey).join(' ')}]`,
        );
    }
    if (judged) {
      const misjudged = judgedWrongly(after, target, rules);
      if (misjudged) return fail('wrong-judgement', `step ${i + 1} ${JSON.stringify(line)}: ${misjudged}`);
      continue; // judged, not entered: the state stays where it was
    }
    path.push(after);
  }
  const last = path[path.length - 1];
  if (last.length > 1) return fail('unused-numbers', `left over: ${last.map(ratKey).join(', ')}`);
  if (!ratEq(last[0], rat(target))) return fail('wrong-value', `ends at ${ratKey(last[0])}, target is ${target}`);
  return { ok: true, reason: 'ok', detail: 'reaches the target' };
}

/** Why rejecting hi/lo on `state` is wrong (its numbers are not there, or it divides exactly), or null. */
function rejectedWrongly(state: readonly Rational[], hi: number, lo: number): [Verdict['reason'], string] | null {
  const rest = withoutPair(state, hi, lo);
  if (typeof rest === 'string') return ['numbers-mismatch', rest];
  if (lo === 0) return ['division-by-zero', 'a division by zero is not a move to reject'];
  return hi % lo === 0 ? ['wrong-judgement', `${hi}/${lo}=${hi / lo} is exact`] : null;
}

/** Why judging a*b on `state` a dead end is wrong (its numbers are not there, or its state has a solution), or null. */
function productJudgedWrongly(
  state: readonly Rational[],
  a: number,
  b: number,
  target: number,
  rules: CountdownRules,
): [Verdict['reason'], string] | null {
  const rest = withoutPair(state, a, b);
  if (typeof rest === 'string') return ['numbers-mismatch', rest];
  const misjudged = judgedWrongly([rat(a * b), ...rest], target, rules);
  return misjudged ? ['wrong-judgement', misjudged] : null;
}

/** The state's numbers without a and b, or which of them is not there. */
function withoutPair(state: readonly Rational[], a: number, b: number): Rational[] | string {
  const pool = [...state];
  for (const x of [a, b]) if (!take(pool, rat(x))) return `${x} is not available`;
  return pool;
}

/** Why marking `state` a dead end is wrong, or null when it is right (the state has no SoS solution). */
function judgedWrongly(state: readonly Rational[], target: number, rules: CountdownRules): string | null {
  if (rules !== 'sos') return `a judged move is only checked under SoS rules, not '${rules}'`;
  const ints = state.map((x) => (x.d === 1 ? x.n : null));
  if (ints.some((x) => x === null)) return 'a judged state holds a fraction';
  const solution = sosFirstSolution(ints as number[], target);
  return solution ? `[${ints.join(' ')}] reaches ${target} (${solution.join(', ')})` : null;
}
