import { describe, expect, it } from 'vitest';
import { Rng } from '@telepath/core';
import { hungarian, maxAssignment } from './hungarian.js';

/** Brute force over all injective maps rows → columns (small sizes only). */
function bruteForce(cost: number[][]): number {
  const n = cost.length;
  const m = cost[0].length;
  let best = Infinity;
  const used = new Array<boolean>(m).fill(false);
  const rec = (i: number, acc: number) => {
    if (i === n) {
      best = Math.min(best, acc);
      return;
    }
    for (let j = 0; j < m; j++) {
      if (used[j]) continue;
      used[j] = true;
      rec(i + 1, acc + cost[i][j]);
      used[j] = false;
    }
  };
  rec(0, 0);
  return best;
}

describe('hungarian', () => {
  it('solves a textbook 3×3 case', () => {
    const r = hungarian([
      [4, 1, 3],
      [2, 0, 5],
      [3, 2, 2],
    ]);
    expect(r.total).toBe(5);
    expect(r.assignment).toEqual([1, 0, 2]);
  });

  it('recovers a hidden permutation from a score matrix', () => {
    const perm = [3, 0, 4, 1, 2];
    const score = perm.map((p) => perm.map((_, j) => (j === p ? 0.9 : 0.1)));
    expect(maxAssignment(score).assignment).toEqual(perm);
  });

  it('matches brute force on random square and rectangular matrices', () => {
    const rng = new Rng(7);
    for (const [n, m] of [
      [4, 4],
      [5, 5],
      [3, 6],
      [6, 3],
      [6, 6],
    ]) {
      for (let t = 0; t < 5; t++) {
        const cost = Array.from({ length: n }, () => Array.from({ length: m }, () => Math.round(rng.float() * 20) - 5));
        const r = hungarian(cost);
        expect(r.total).toBeCloseTo(bruteForce(n <= m ? cost : cost[0].map((_, j) => cost.map((row) => row[j]))), 10);
        const cols = r.assignment.filter((j) => j >= 0);
        expect(new Set(cols).size).toBe(Math.min(n, m));
      }
    }
  });

  it('handles empty input and rejects ragged or non-finite costs', () => {
    expect(hungarian([]).assignment).toEqual([]);
    expect(() => hungarian([[1, 2], [3]])).toThrow(/ragged/);
    expect(() => hungarian([[NaN]])).toThrow(/non-finite/);
  });
});
