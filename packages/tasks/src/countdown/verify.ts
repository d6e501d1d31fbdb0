/**
 * Countdown verifier (docs/datasets.md §8.4, §9): scores an answer — an expression or a list of
 * steps "a op b=c" — against the numbers and the target under 'sos' or 'all-numbers' rules,
 * with exact rational arithmetic. Each number must be used exactly as often as it is given
 * (operands are consumed as a multiset, unlike SoS's own checker, §8.3 caveat); every
 * intermediate must be allowed by the rules; the result must equal the target.
 */
import { parseExpr, ExprSyntaxError, type Expr } from './expr.js';
import {
  applyOp,
  opViolation,
  rat,
  ratEq,
  ratKey,
  STEP_VALUE,
  type CountdownRules,
  type Op,
  type Rational,
} from './rules.js';

export type VerifyReason =
  | 'ok'
  | 'empty'
  | 'syntax'
  | 'bad-number'
  | 'numbers-mismatch'
  | 'wrong-arithmetic'
  | 'negative-intermediate'
  | 'inexact-division'
  | 'division-by-zero'
  | 'unused-numbers'
  | 'wrong-value'
  /** A written state ("[18 62]") or a "back [s]" that does not match the numbers (trace-check.ts). */
  | 'wrong-state'
  /** A move marked " x" (judged a dead end, not entered) whose state does have a solution, or a rejected division "a/b x" that is exact (trace-check.ts). */
  | 'wrong-judgement';

export interface Verdict {
  ok: boolean;
  reason: VerifyReason;
  detail: string;
}

const OK: Verdict = { ok: true, reason: 'ok', detail: 'reaches the target' };
const fail = (reason: VerifyReason, detail: string): Verdict => ({ ok: false, reason, detail });

/** An exact rational from "12", "0.75", "-3", "(2/3)" or "(-4)"; null when malformed. */
export function parseNumber(text: string): Rational | null {
  let t = text.trim().replace(/^\u2212/, '-');
  const paren = /^\((.*)\)$/.exec(t);
  if (paren) t = paren[1].trim();
  const fraction = /^(-?\d+)\s*\/\s*(\d+)$/.exec(t);
  if (paren && fraction) {
    const [n, d] = [Number(fraction[1]), Number(fraction[2])];
    return d === 0 || !Number.isSafeInteger(n) || !Number.isSafeInteger(d) ? null : rat(n, d);
  }
  const m = /^(-?)(\d*)(?:\.(\d+))?$/.exec(t);
  if (!m || (m[2] === '' && m[3] === undefined)) return null;
  const frac = m[3] ?? '';
  const n = Number((m[2] || '0') + frac) * (m[1] ? -1 : 1);
  const d = 10 ** frac.length;
  if (!Number.isSafeInteger(n) || !Number.isSafeInteger(d)) return null; // e.g. a model's "111…1" (22 digits): no exact value
  return rat(n, d);
}

/** a op b, or 'overflow' when the exact result leaves the safe-integer range (models write huge numbers). */
function applyExact(a: Rational, op: Op, b: Rational): Rational | null | 'overflow' {
  try {
    return applyOp(a, op, b);
  } catch {
    return 'overflow';
  }
}

function violationReason(v: string): VerifyReason {
  if (v === 'negative intermediate') return 'negative-intermediate';
  if (v === 'inexact division') return 'inexact-division';
  if (v === 'division by zero') return 'division-by-zero';
  return 'bad-number';
}

/** Removes one copy of `x` from the pool; false when none is left. */
export function take(pool: Rational[], x: Rational): boolean {
  const i = pool.findIndex((p) => ratEq(p, x));
  if (i < 0) return false;
  pool.splice(i, 1);
  return true;
}

export function verifyExpression(
  nums: readonly number[],
  target: number,
  text: string,
  rules: CountdownRules,
): Verdict {
  let body = text.trim();
  if (body === '') return fail('empty', 'no answer');
  // Accept a trailing "= N" and require N to be the target.
  const eq = /^(.*)=\s*([^=]+)$/.exec(body);
  if (eq) {
    const claimed = parseNumber(eq[2]);
    if (!claimed || !ratEq(claimed, rat(target)))
      return fail('wrong-value', `claims ${eq[2].trim()}, target is ${target}`);
    body = eq[1];
  }
  let tree: Expr;
  try {
    tree = parseExpr(body);
  } catch (e) {
    if (e instanceof ExprSyntaxError) return fail('syntax', e.message);
    throw e;
  }
  const pool = nums.map((x) => rat(x));
  let problem: Verdict | null = null;
  const evaluate = (e: Expr): Rational | null => {
    if (e.kind === 'num') {
      const v = parseNumber(e.text);
      if (!v || v.d !== 1) {
        problem ??= fail('bad-number', `${e.text} is not an integer`);
        return null;
      }
      if (!take(pool, v))
        problem ??= fail('numbers-mismatch', `${e.text} is not available (numbers ${nums.join(', ')})`);
      return v;
    }
    const a = evaluate(e.left);
    const b = evaluate(e.right);
    if (!a || !b || problem) return null;
    const r = applyExact(a, e.op, b);
    if (r === 'overflow') {
      problem ??= fail('bad-number', `${ratKey(a)}${e.op}${ratKey(b)} is outside the exact integer range`);
      return null;
    }
    const v = opViolation(a, e.op, b, r, rules);
    if (v) {
      problem ??= fail(violationReason(v), `${ratKey(a)}${e.op}${ratKey(b)}: ${v}`);
      return null;
    }
    return r;
  };
  const value = evaluate(tree);
  if (problem) return problem;
  if (pool.length > 0) return fail('unused-numbers', `not used: ${pool.map(ratKey).join(', ')}`);
  if (!value || !ratEq(value, rat(target)))
    return fail('wrong-value', `evaluates to ${value ? ratKey(value) : '?'}, target is ${target}`);
  return OK;
}

const STEP = new RegExp(
  String.raw`^\s*(${STEP_VALUE})\s*([-+*/\u00d7\u00f7\u2212x])\s*(${STEP_VALUE})\s*=\s*(${STEP_VALUE})\s*$`,
);
const STEP_OPS: Record<string, Op> = {
  '+': '+',
  '-': '-',
  '\u2212': '-',
  '*': '*',
  '\u00d7': '*',
  x: '*',
  '/': '/',
  '\u00f7': '/',
};

export function verifySteps(
  nums: readonly number[],
  target: number,
  steps: readonly string[],
  rules: CountdownRules,
): Verdict {
  if (steps.length === 0) {
    return nums.length === 1 && nums[0] === target ? OK : fail('empty', 'no steps');
  }
  const pool = nums.map((x) => rat(x));
  for (const [i, s] of steps.entries()) {
    const v = applyStep(pool, s, i, rules);
    if (v) return v;
  }
  if (pool.length > 1) return fail('unused-numbers', `left over: ${pool.map(ratKey).join(', ')}`);
  if (!ratEq(pool[0], rat(target))) return fail('wrong-value', `ends at ${ratKey(pool[0])}, target is ${target}`);
  return OK;
}

/**
 * Applies step i ("a op b=c") to `pool` in place: a and b are taken out, c is appended. Returns
 * why the step is wrong (the pool is then partly changed), or null.
 */
export function applyStep(pool: Rational[], s: string, i: number, rules: CountdownRules): Verdict | null {
  const m = STEP.exec(s);
  if (!m) return fail('syntax', `step ${i + 1} ${JSON.stringify(s)} is not "a op b=c"`);
  const [a, b, c] = [parseNumber(m[1]), parseNumber(m[3]), parseNumber(m[4])];
  if (!a || !b || !c) return fail('bad-number', `step ${i + 1} ${JSON.stringify(s)} has a malformed number`);
  if (!take(pool, a)) return fail('numbers-mismatch', `step ${i + 1}: ${m[1]} is not available`);
  if (!take(pool, b)) return fail('numbers-mismatch', `step ${i + 1}: ${m[3]} is not available`);
  const op = STEP_OPS[m[2]];
  const r = applyExact(a, op, b);
  if (r === 'overflow')
    return fail('bad-number', `step ${i + 1} ${JSON.stringify(s)}: outside the exact integer range`);
  const v = opViolation(a, op, b, r, rules);
  if (v) return fail(violationReason(v), `step ${i + 1} ${JSON.stringify(s)}: ${v}`);
  if (!ratEq(r!, c))
    return fail(
      'wrong-arithmetic',
      `step ${i + 1} ${JSON.stringify(s)}: ${ratKey(a)}${op}${ratKey(b)} is ${ratKey(r!)}`,
    );
  pool.push(c);
  return null;
}

/**
 * Scores an answer: a list of steps, a text of steps (one per line or separated by ";" or ","),
 * or an expression (optionally ending "= target").
 */
export function verifyCountdown(
  nums: readonly number[],
  target: number,
  answer: string | readonly string[],
  rules: CountdownRules = 'sos',
): Verdict {
  if (typeof answer !== 'string') return verifySteps(nums, target, answer, rules);
  const parts = answer
    .split(/[\n;,]/)
    .map((p) => p.trim())
    .filter((p) => p !== '');
  if (parts.length > 1 && parts.every((p) => STEP.test(p))) return verifySteps(nums, target, parts, rules);
  return verifyExpression(nums, target, answer, rules);
}
