/**
 * Countdown text: the question, and the one-expression answer rebuilt from a list of steps
 * (each step's operands are taken from the pool of given numbers and earlier results, by value).
 */
import { parseNumber } from './verify.js';
import { ratEq, ratKey, STEP_VALUE, type Rational } from './rules.js';

const STEP = new RegExp(String.raw`^(${STEP_VALUE})([-+*/])(${STEP_VALUE})=(${STEP_VALUE})$`);

/** "Make 40 from 14 34 28 4." */
export function countdownQuestion(nums: readonly number[], target: number): string {
  return `Make ${target} from ${nums.join(' ')}.`;
}

const PREC: Record<string, number> = { '+': 1, '-': 1, '*': 2, '/': 2 };

/** The expression equivalent to `steps` (minimal parentheses), e.g. "28+(14+34)/4". Throws when a step does not parse or uses a number not in the pool. */
export function stepsToExpression(nums: readonly number[], steps: readonly string[]): string {
  const pool: { v: Rational; text: string; prec: number }[] = nums.map((x) => ({
    v: { n: x, d: 1 },
    text: String(x),
    prec: 3,
  }));
  const take = (v: Rational, step: string) => {
    const i = pool.findIndex((p) => ratEq(p.v, v));
    if (i < 0) throw new Error(`stepsToExpression: ${ratKey(v)} in "${step}" is not available`);
    return pool.splice(i, 1)[0];
  };
  for (const s of steps) {
    const m = STEP.exec(s.replace(/\s+/g, ''));
    const [a, b, c] = m ? [parseNumber(m[1]), parseNumber(m[3]), parseNumber(m[4])] : [null, null, null];
    if (!m || !a || !b || !c) throw new Error(`stepsToExpression: cannot parse step "${s}"`);
    const l = take(a, s);
    const r = take(b, s);
    const op = m[2];
    const p = PREC[op];
    const lt = l.prec < p ? `(${l.text})` : l.text;
    const rt = r.prec < p || (r.prec === p && (op === '-' || op === '/')) ? `(${r.text})` : r.text;
    pool.push({ v: c, text: `${lt}${op}${rt}`, prec: p });
  }
  if (pool.length !== 1) throw new Error(`stepsToExpression: ${pool.length} values left after the steps`);
  return pool[0].text;
}
