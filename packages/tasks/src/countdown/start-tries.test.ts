/** Every try from the starting numbers: the guessing search's own traces, and a hand-written chain with each outcome. */
import { describe, expect, it } from 'vitest';
import { generateCountdown } from './generate.js';
import { renderCountdown } from './reasoning.js';
import { sosFirstSolution, sosSolutionCount } from './sos-dfs.js';
import { countStartTries, emptyStartTryStats, formatStartTryStats, startTries } from './start-tries.js';
import type { CountdownMeta } from './generate.js';

describe('tries from the starting numbers', () => {
  it("reads the guessing search's traces as written: every solvable try a hit, every dead one a miss", () => {
    const s = emptyStartTryStats();
    const problems = generateCountdown({ n: 4, count: 300, seed: 3, split: 'train' });
    for (const ex of problems) {
      const r = renderCountdown(ex, {
        reasoning: 'search-guess',
        numberFormat: 'plain',
        maxBacks: 12,
        searchOrder: 'products-last',
        rejectInexact: true,
        judgeLongProducts: true,
      });
      const { nums, target } = ex.meta as CountdownMeta;
      countStartTries(s, { nums, target }, r.steps);
    }
    expect(s.chains).toBe(300);
    expect(s.unread).toBe(0);
    // The trace stops at its first hit, so exactly one solvable try a chain, and it hits.
    expect(s.solvable).toEqual({ tries: 300, hit: 300, falseHit: 0, miss: 0 });
    expect(Object.keys(s.solvableByPlace).sort()).toEqual(['1', '2-3', '4+', 'all']);
    expect(s.solvableByPlace.all.every((p) => p.hit === p.tries)).toBe(true);
    expect(s.dead.tries).toBeGreaterThan(300); // ≈ 3.8 misses a trace (trace-stats --guess)
    expect(s.dead).toMatchObject({ hit: 0, falseHit: 0, miss: s.dead.tries });
  });

  it('tells a hit from a false hit (wrong arithmetic, or numbers the try did not have) and a miss, and skips wrong moves', () => {
    const start = { nums: [2, 3, 5, 7], target: 41 };
    // The premises: after 5*7 the state [35 2 3] has one solution (2*3, then 35+6), after 2+3 the
    // state [5 5 7] has none; [2 3 5] reaches 10 three ways (2+3 then +5, 2+5 then +3, 3+5 then +2).
    expect(sosSolutionCount([35, 2, 3], 41)).toBe(1);
    expect(sosSolutionCount([2, 3, 5], 10)).toBe(3);
    expect(sosSolutionCount([5, 2, 3], 10)).toBe(3); // a multiset: the order of the numbers does not count
    expect(sosFirstSolution([5, 5, 7], 41)).toBeNull();
    const chain = [
      ...['2+3=5 [5 5 7]', '5*7=35 [35 5]', '35+5=40 [40]', 'back [2 3 5 7]'], // dead, miss
      ...['2+3=5 [5 5 7]', '5*7=35 [35 5]', '35+5=41 [41]', 'back [2 3 5 7]'], // dead, false hit (35+5 is 40)
      ...['5*7=36 [36 2 3]', '36+3=39 [39 2]', 'back [2 3 5 7]'], // unread: the move is wrong
      ...['5*7=35 [35 2 3]', '2+3=5 [5 35]', '35+5=40 [40]', 'back [2 3 5 7]'], // solvable, miss
      ...['5*7=35 [35 2 3]', '7-1=6 [6 35]', '35+6=41 [41]', 'back [2 3 5 7]'], // solvable, false hit (7 and 1 not there)
      ...['2/3 x', '5*7=35 [35 2 3]', '2*3=6 [6 35]', '35+6=41 [41]'], // a rejected move, then solvable, hit
    ];
    expect(startTries(start, chain).map((t) => t.rest.length)).toEqual([2, 2, 1, 2, 2, 2]);
    const s = emptyStartTryStats();
    countStartTries(s, start, chain);
    expect(s).toEqual({
      chains: 1,
      solvable: { tries: 3, hit: 1, falseHit: 1, miss: 1 },
      dead: { tries: 2, hit: 0, falseHit: 1, miss: 1 },
      unread: 1,
      // The solvable tries are the 4th, 5th and 6th, all 5*7=35: the 5th and the 6th (which hits) repeat the 4th's move.
      solvableByPlace: {
        all: [0, 0, 0, 1, 0, 0].map((tries) => ({ tries, hit: 0 })),
        '1': [0, 0, 0, 1, 0, 0].map((tries) => ({ tries, hit: 0 })),
      },
      solvableRepeats: { tries: 2, hit: 1 },
    });
    expect(formatStartTryStats(s)).toEqual([
      '  tries from the start: 6 (6.0 a chain); into a solvable state 3: hit 33.3 %, false hit 33.3 %, missed 33.3 %; ' +
        'into a dead state 2: hit 0.0 %, false hit 50.0 %, missed 50.0 %; unread 1',
      "  solvable tries repeating an earlier try's move: 2 (hit 50.0 %); the others by place:",
      "    hit by their place among the chain's tries: 1 –, 2 –, 3 –, 4-6 0.0 % of 1, 7-10 –, 11+ –",
      '    hit into states of 1 solution: 1 –, 2 –, 3 –, 4-6 0.0 % of 1, 7-10 –, 11+ –',
    ]);
  });

  it('follows a depth-first search inside a try through its backs to smaller states', () => {
    const start = { nums: [2, 3, 5, 7], target: 41 };
    const chain = [
      '5*7=35 [35 2 3]',
      '35+2=37 [37 3]',
      '37+3=40 [40]',
      'back [35 2 3]',
      '2*3=6 [6 35]',
      '35+6=41 [41]',
    ];
    const s = emptyStartTryStats();
    countStartTries(s, start, chain);
    expect(s.solvable).toEqual({ tries: 1, hit: 1, falseHit: 0, miss: 0 });
  });
});
