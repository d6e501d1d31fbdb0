/**
 * The Stream-of-Search reference search (docs/datasets.md §8.1): depth-first over pairs (i < j) in
 * index order and operations in the order +, ×, −, ÷; the result replaces both operands and is
 * appended at the end of the remaining list (operands removed by index, not by value — see
 * §8.2's caveat); success when one number remains and equals the target. The first solution
 * found is the generator's reference solution. Written from the description, not from SoS code.
 */
import { sosMoves, rat, formatStep } from './rules.js';

/** The first SoS solution as steps ("a op b=c"), or null when the instance is unsolvable. */
export function sosFirstSolution(nums: readonly number[], target: number): string[] | null {
  const steps: string[] = [];
  // States (as sorted multisets) already shown to fail. Skipping them cannot change which
  // solution is found first: a multiset that fails in one order fails in every order.
  const failed = new Set<string>();
  const search = (state: number[]): boolean => {
    if (state.length === 1) return state[0] === target;
    const id = [...state].sort((a, b) => a - b).join(',');
    if (failed.has(id)) return false;
    for (let i = 0; i < state.length; i++) {
      for (let j = i + 1; j < state.length; j++) {
        for (const [l, op, r, c] of sosMoves(state[i], state[j])) {
          const rest = state.filter((_, k) => k !== i && k !== j);
          rest.push(c);
          steps.push(formatStep(rat(l), op, rat(r), rat(c)));
          if (search(rest)) return true;
          steps.pop();
        }
      }
    }
    failed.add(id);
    return false;
  };
  return search([...nums]) ? steps : null;
}

/** SoS's naive tree size used as max_nodes in its rating (docs/datasets.md §8.4): Π over depths of 4·C(m, 2). */
export function sosNaiveTreeSize(n: number): number {
  let size = 1;
  for (let m = n; m >= 2; m--) size *= 4 * ((m * (m - 1)) / 2);
  return size;
}

/**
 * How many SoS move sequences reach the target from `nums` (pairs i < j, each of +, ×, −, ÷ that
 * applies, to one number): a state whose only solution is one sequence is harder to see at a
 * glance than one with several. Orders of the same moves count apart (a+b then +c, b+c then +a …).
 * Memoised on the state as a multiset (the count does not depend on the numbers' order), so a
 * six-number state costs thousands of states, not millions of sequences.
 */
export function sosSolutionCount(nums: readonly number[], target: number): number {
  const counted = new Map<string, number>();
  const count = (state: number[]): number => {
    if (state.length === 1) return state[0] === target ? 1 : 0;
    const id = [...state].sort((a, b) => a - b).join(',');
    const known = counted.get(id);
    if (known !== undefined) return known;
    let n = 0;
    for (let i = 0; i < state.length; i++)
      for (let j = i + 1; j < state.length; j++)
        for (const [, , , c] of sosMoves(state[i], state[j]))
          n += count([...state.filter((_, k) => k !== i && k !== j), c]);
    counted.set(id, n);
    return n;
  };
  return count([...nums]);
}
