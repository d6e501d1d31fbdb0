/**
 * An exhaustive Countdown solver, independent of the SoS search (sos-dfs.ts): dynamic
 * programming over subsets of the numbers. For every subset it keeps each value that an
 * expression over exactly that subset can take, with one witness (the split and the two values
 * it came from); the instance is solvable iff the target is a value of the full set. Any
 * sequence of pairwise operations is an expression tree and vice versa, so this covers the same
 * space as the step-by-step search. Works under both rule sets of rules.ts.
 */
import { formatStep, rat, rationalMoves, type CountdownRules, type Op, type Rational } from './rules.js';

/** Value key: the integer itself, or "n/d" for a non-integer rational. */
type Key = number | string;
type Witness = { leaf: number } | { op: Op; left: [number, Key]; right: [number, Key] };
interface Entry {
  value: Rational;
  witness: Witness;
}

export interface Solution {
  /** The operations in order, "a op b=c". */
  steps: string[];
  /** One expression using every number once (minimal parentheses). */
  expression: string;
}

const key = (r: Rational): Key => (r.d === 1 ? r.n : `${r.n}/${r.d}`);
const PREC: Record<Op, number> = { '+': 1, '-': 1, '*': 2, '/': 2 };

function popcount(x: number): number {
  let c = 0;
  for (; x; x &= x - 1) c++;
  return c;
}

/**
 * The moves on values a (from one half) and b (from the other), as [aIsLeft, op, result].
 * 'sos': a+b, a·b, larger − smaller, exact larger ÷ smaller (docs/datasets.md §8.1).
 * 'all-numbers': + × and both orders of − ÷ over rationals (docs/datasets.md §9).
 */
function moves(a: Rational, b: Rational, rules: CountdownRules, out: [boolean, Op, Rational][]): void {
  out.length = 0;
  if (rules === 'sos') {
    const x = a.n;
    const y = b.n;
    out.push([true, '+', rat(x + y)], [true, '*', rat(x * y)], [x >= y, '-', rat(Math.abs(x - y))]);
    const [hi, lo] = x >= y ? [x, y] : [y, x];
    if (lo !== 0 && hi % lo === 0) out.push([x >= y, '/', rat(hi / lo)]);
    return;
  }
  for (const [l, op, , c] of rationalMoves(a, b)) out.push([l === a, op, c]);
}

/** Solves; null when no expression over all the numbers reaches the target. */
export function solveCountdown(
  nums: readonly number[],
  target: number,
  rules: CountdownRules = 'sos',
): Solution | null {
  const n = nums.length;
  if (n === 0 || n > 8) throw new Error(`solveCountdown: expected 1..8 numbers, got ${n}`);
  const full = (1 << n) - 1;
  const goal = key(rat(target));
  const table: Map<Key, Entry>[] = Array.from({ length: 1 << n }, () => new Map());
  nums.forEach((x, i) => table[1 << i].set(key(rat(x)), { value: rat(x), witness: { leaf: i } }));
  const masks = [...Array(full + 1).keys()]
    .filter((m) => popcount(m) >= 2)
    .sort((a, b) => popcount(a) - popcount(b) || a - b);
  const buf: [boolean, Op, Rational][] = [];
  let found: Entry | null = n === 1 && table[1].has(goal) ? table[1].get(goal)! : null;
  search: for (const mask of masks) {
    const out = table[mask];
    const low = mask & -mask; // the half holding the lowest element: each unordered split once
    for (let sub = (mask - 1) & mask; sub > 0; sub = (sub - 1) & mask) {
      if (!(sub & low)) continue;
      const other = mask ^ sub;
      for (const [ka, ea] of table[sub]) {
        for (const [kb, eb] of table[other]) {
          moves(ea.value, eb.value, rules, buf);
          for (const [aLeft, op, c] of buf) {
            const kc = key(c);
            if (mask === full ? kc !== goal : out.has(kc)) continue;
            const left: [number, Key] = aLeft ? [sub, ka] : [other, kb];
            const right: [number, Key] = aLeft ? [other, kb] : [sub, ka];
            const entry: Entry = { value: c, witness: { op, left, right } };
            if (mask === full) {
              found = entry;
              break search;
            }
            out.set(kc, entry);
          }
        }
      }
    }
  }
  if (!found) return null;
  const steps: string[] = [];
  const expr = (e: Entry): { text: string; prec: number } => {
    const w = e.witness;
    if ('leaf' in w) return { text: String(nums[w.leaf]), prec: 3 };
    const le = table[w.left[0]].get(w.left[1])!;
    const re = table[w.right[0]].get(w.right[1])!;
    const l = expr(le);
    const r = expr(re);
    steps.push(formatStep(le.value, w.op, re.value, e.value));
    const p = PREC[w.op];
    const lt = l.prec < p ? `(${l.text})` : l.text;
    const rt = r.prec < p || (r.prec === p && (w.op === '-' || w.op === '/')) ? `(${r.text})` : r.text;
    return { text: `${lt}${w.op}${rt}`, prec: p };
  };
  const expression = expr(found).text;
  return { expression, steps };
}
