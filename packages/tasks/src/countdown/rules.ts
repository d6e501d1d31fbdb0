/**
 * Countdown arithmetic under two rule sets (docs/datasets.md §8–§9):
 * - 'sos' (Stream-of-Search): on a pair a, b only a+b, a·b, larger − smaller and exact
 *   larger ÷ smaller (smaller ≠ 0); every intermediate is a non-negative integer.
 * - 'all-numbers' (TinyZero's variant): any order and parenthesisation of + − × ÷ over exact
 *   rationals, negative and fractional intermediates allowed, division by zero not.
 * Both use every given number exactly once. Values are exact rationals (numerator/denominator
 * as safe integers, reduced, denominator > 0); 'sos' values always have denominator 1.
 */

export type CountdownRules = 'sos' | 'all-numbers';
export const COUNTDOWN_RULES: readonly CountdownRules[] = ['sos', 'all-numbers'];
export type Op = '+' | '-' | '*' | '/';

export interface Rational {
  n: number;
  d: number;
}

function gcd(a: number, b: number): number {
  a = Math.abs(a);
  b = Math.abs(b);
  while (b) [a, b] = [b, a % b];
  return a;
}

export function rat(n: number, d = 1): Rational {
  if (d === 0) throw new Error('rat: zero denominator');
  if (!Number.isSafeInteger(n) || !Number.isSafeInteger(d))
    throw new Error(`rat: ${n}/${d} is outside the safe-integer range`);
  const g = gcd(n, d) || 1;
  const s = d < 0 ? -1 : 1;
  return { n: (s * n) / g + 0, d: (s * d) / g };
}

export const ratKey = (r: Rational): string => (r.d === 1 ? String(r.n) : `${r.n}/${r.d}`);
export const ratEq = (a: Rational, b: Rational): boolean => a.n === b.n && a.d === b.d;
export const isInt = (r: Rational): boolean => r.d === 1;

/** a op b over rationals; null for division by zero. */
export function applyOp(a: Rational, op: Op, b: Rational): Rational | null {
  switch (op) {
    case '+':
      return rat(a.n * b.d + b.n * a.d, a.d * b.d);
    case '-':
      return rat(a.n * b.d - b.n * a.d, a.d * b.d);
    case '*':
      return rat(a.n * b.n, a.d * b.d);
    case '/':
      return b.n === 0 ? null : rat(a.n * b.d, a.d * b.n);
  }
}

/** Why an operation is not allowed under the rules, or null when it is. */
export function opViolation(
  a: Rational,
  op: Op,
  b: Rational,
  result: Rational | null,
  rules: CountdownRules,
): string | null {
  if (result === null) return 'division by zero';
  if (rules === 'all-numbers') return null;
  if (!isInt(a) || !isInt(b)) return 'non-integer operand';
  if (op === '-' && result.n < 0) return 'negative intermediate';
  if (op === '/' && !isInt(result)) return 'inexact division';
  return null;
}

/**
 * The SoS moves on an unordered pair, in SoS order +, ×, −, ÷, written larger-first for − and ÷
 * (docs/datasets.md §8.1). Each entry: [left, op, right, result].
 */
export function sosMoves(a: number, b: number): [number, Op, number, number][] {
  const [hi, lo] = a >= b ? [a, b] : [b, a];
  const moves: [number, Op, number, number][] = [
    [a, '+', b, a + b],
    [a, '*', b, a * b],
    [hi, '-', lo, hi - lo],
  ];
  if (lo !== 0 && hi % lo === 0) moves.push([hi, '/', lo, hi / lo]);
  return moves;
}

/** All 'all-numbers' moves on an unordered pair (both orders of − and ÷). */
export function rationalMoves(a: Rational, b: Rational): [Rational, Op, Rational, Rational][] {
  const out: [Rational, Op, Rational, Rational][] = [];
  const push = (x: Rational, op: Op, y: Rational) => {
    const r = applyOp(x, op, y);
    if (r) out.push([x, op, y, r]);
  };
  push(a, '+', b);
  push(a, '*', b);
  push(a, '-', b);
  push(b, '-', a);
  push(a, '/', b);
  push(b, '/', a);
  return out;
}

/** A value as written in a step: a non-negative integer bare, anything else in parentheses ("(2/3)", "(-4)"). */
export function stepValue(r: Rational): string {
  return r.d === 1 && r.n >= 0 ? String(r.n) : `(${ratKey(r)})`;
}

/** "a op b=c" (the SoS step format; 'all-numbers' values may be "(p/q)" or "(-n)"). */
export function formatStep(a: Rational, op: Op, b: Rational, c: Rational): string {
  return `${stepValue(a)}${op}${stepValue(b)}=${stepValue(c)}`;
}

/** One value in a step: an integer or decimal, optionally negative, or a parenthesised value or fraction. */
export const STEP_VALUE = String.raw`\(\s*-?[0-9.]+(?:\s*\/\s*[0-9]+)?\s*\)|-?[0-9.]+`;
