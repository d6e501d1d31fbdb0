import { describe, expect, it } from 'vitest';
import { countFirstMove, emptyFirstMoveStats, formatFirstMoveStats } from './first-move.js';
import { searchStats } from './search-stats.js';

// 2 3 7 → 20: of the nine SoS moves on the start only 3+7=10 leads to a solution (10*2); the first
// listed, 2+3=5, leaves [5 7], which has none.
const START = { nums: [2, 3, 7], target: 20 };

describe('the first move of a written search', () => {
  it('sorts chains by where their first entered move leads, beside the baselines that judge nothing', () => {
    const s = emptyFirstMoveStats();
    countFirstMove(s, START, ['3+7=10 [10 2]', '10*2=20 [20]'], true);
    // A judged line is not entered: the first entered move is 3+7.
    countFirstMove(s, START, ['2+3=5 [5 7] x', '3+7=10 [10 2]', '10*2=20 [20]'], true);
    countFirstMove(s, START, ['2+3=5 [5 7]', '7+5=12 [12]', 'back [2 3 7]', '3+7=10 [10 2]'], false);
    countFirstMove(s, START, ['3+7=11 [11 2]', 'back [2 3 3]'], false); // wrong arithmetic; a start mangled
    countFirstMove(s, START, ['9+9=18 [18 7]'], false); // numbers it does not have
    expect(s).toMatchObject({ chains: 5, solvable: 2, solvableRight: 2, dead: 1, deadRight: 0, unread: 2 });
    expect(s.listedSolvable).toBe(0);
    expect(s.randomSolvable).toBeCloseTo(5 / 9, 10);
    expect([s.backsToStart, s.backsToStartRight]).toEqual([2, 1]);
    expect(formatFirstMoveStats(s)).toEqual([
      '  first move into a solvable state: 2 of 5 (40.0 %; then right 100.0 %), dead 1 (then right 0.0 %), unread 2; judging nothing: the first listed move 0.0 %, a random move 11.1 %',
      '  back to 2 start-sized states, naming the starting numbers in 1 (50.0 %)',
    ]);
    expect(formatFirstMoveStats(emptyFirstMoveStats())).toEqual([]);
  });

  it('is counted by searchStats for samples whose question is known, and only for those', () => {
    const text = '3+7=10 [10 2]\n10*2=20 [20]\n### (3+7)*2';
    const s = searchStats([
      { text, correct: true, start: START },
      { text, correct: true },
    ]);
    expect([s.total, s.firstMove.chains, s.firstMove.solvable]).toEqual([2, 1, 1]);
  });
});
