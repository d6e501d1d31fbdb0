import { Rng } from '@telepath/core';
import { describe, expect, it } from 'vitest';
import { countdownTargets, type CountdownMeta } from './generate.js';
import {
  countdownFact,
  countdownTrainBatch,
  exampleChars,
  factsInBatch,
  singleSolutionGuess,
  type CountdownStreamOptions,
  type FactOps,
} from './stream.js';
import { countdownTask } from './task.js';

const OPTS: CountdownStreamOptions = {
  n: 3,
  reasoning: 'state',
  numberFormat: 'plain',
  maxBacks: 4,
  searchOrder: 'closest',
  warmupShare: 0.25,
  warmupSteps: 10,
};
const batchAt = (o: CountdownStreamOptions, seed: number, step: number, size = 16) =>
  countdownTrainBatch(o, new Rng(seed).fork(`step/${step}`), step, size);
const isFact = (e: { meta?: unknown }) => (e.meta as CountdownMeta).fact === true;

describe('Countdown training stream', () => {
  it('the same seed and step give the same batch; another step or seed another one', () => {
    const a = batchAt(OPTS, 3, 12);
    expect(batchAt(OPTS, 3, 12)).toEqual(a);
    expect(batchAt(OPTS, 3, 13)).not.toEqual(a);
    expect(batchAt(OPTS, 4, 12)).not.toEqual(a);
    // A batch depends only on its step's Rng: drawing other steps first changes nothing (a resume).
    batchAt(OPTS, 3, 0);
    expect(batchAt(OPTS, 3, 12)).toEqual(a);
  });

  it('draws solvable instances of train targets only, in the arm format, never a test solution', () => {
    const train = new Set(countdownTargets().train);
    // Avoid what the stream itself draws without avoiding: every one of those must be redrawn.
    const solution = (ex: { steps: string[] }) => ex.steps.map((l) => l.replace(/ \[.*\]$/, '')).join(', ');
    const avoid = new Set(
      Array.from({ length: 40 }, (_, k) => batchAt(OPTS, 0, 20 + k))
        .flat()
        .map(solution),
    );
    expect(avoid.size).toBeGreaterThan(500);
    const seen = new Set<string>();
    for (let step = 20; step < 60; step++) {
      for (const ex of batchAt({ ...OPTS, avoidSolutions: avoid }, 0, step)) {
        const m = ex.meta as CountdownMeta;
        expect(train.has(m.target)).toBe(true);
        expect(countdownTask.checkReasoning!(ex, ex.steps.join('\n')).ok).toBe(true);
        expect(ex.steps[0]).toMatch(/\[/);
        expect(avoid.has(solution(ex))).toBe(false);
        seen.add(ex.question);
      }
    }
    expect(seen.size).toBeGreaterThan(600); // 640 draws: fresh problems, not a small list
  });

  it('redraws instances longer than maxChars, so the stream fits the context sized from a sample', () => {
    const search = { ...OPTS, n: 4, reasoning: 'search' as const };
    const free = Array.from({ length: 10 }, (_, s) => batchAt(search, 0, s))
      .flat()
      .map(exampleChars);
    const cap = [...free].sort((a, b) => a - b)[Math.floor(free.length / 2)]; // the median: half the free draws are longer
    const capped = Array.from({ length: 10 }, (_, s) => batchAt({ ...search, maxChars: cap }, 0, s))
      .flat()
      .map(exampleChars);
    expect(Math.max(...free)).toBeGreaterThan(cap);
    expect(Math.max(...capped)).toBeLessThanOrEqual(cap);
  });

  it('mixes facts into the warm-up batches at exactly the stated share, and none after', () => {
    expect(factsInBatch(OPTS, 0, 64)).toBe(16);
    let facts = 0;
    let total = 0;
    for (let step = 0; step < 10; step++) {
      const b = batchAt(OPTS, 1, step, 64);
      expect(b.filter(isFact).length).toBe(16);
      facts += b.filter(isFact).length;
      total += b.length;
    }
    expect(facts / total).toBe(0.25);
    expect(batchAt(OPTS, 1, 10, 64).filter(isFact).length).toBe(0);
    expect(batchAt({ ...OPTS, warmupShare: 1 }, 1, 0, 8).every(isFact)).toBe(true);
  });

  it('facts are "a op b=" → "c", right under the rules, and scored by their result', () => {
    for (const format of ['plain', 'reversed'] as const) {
      for (const f of batchAt({ ...OPTS, numberFormat: format, warmupShare: 1 }, 2, 0, 200)) {
        const text = format === 'reversed' ? f.question.replace(/\d+/g, (d) => [...d].reverse().join('')) : f.question;
        const m = /^(\d+)([-+*/])(\d+)=$/.exec(text)!;
        const [a, op, b] = [Number(m[1]), m[2], Number(m[3])];
        const c = op === '+' ? a + b : op === '*' ? a * b : op === '-' ? a - b : a / b;
        expect(Number.isInteger(c) && c >= 0).toBe(true);
        expect((f.meta as CountdownMeta).target).toBe(c);
        expect(f.steps).toEqual([]);
        expect(countdownTask.isCorrect(f, `### ${f.answer}`)).toBe(true);
        expect(countdownTask.isCorrect(f, `### ${c + 1}`)).toBe(false);
      }
    }
  });

  it("'every-op' facts give each operation a quarter of the random half, every one exact; 'moves' few quotients", () => {
    const opShares = (ops: FactOps) => {
      const rng = new Rng(5);
      const count: Record<string, number> = { '+': 0, '*': 0, '-': 0, '/': 0 };
      const total = 8000;
      for (let i = 0; i < total; i++) {
        const f = countdownFact(rng, 3, 'plain', `f${i}`, ops);
        const m = /^(\d+)([-+*/])(\d+)=$/.exec(f.question)!;
        const [a, op, b] = [Number(m[1]), m[2], Number(m[3])];
        const c = op === '+' ? a + b : op === '*' ? a * b : op === '-' ? a - b : a / b;
        expect(Number.isInteger(c) && c >= 0 && (f.meta as CountdownMeta).target === c).toBe(true);
        count[op]++;
      }
      return Object.fromEntries(Object.entries(count).map(([op, k]) => [op, k / total]));
    };
    const every = opShares('every-op');
    const moves = opShares('moves');
    // Half the facts are solution steps (their own mix, the same under both settings); the other half
    // is a quarter per operation under 'every-op', so ÷ is ≥ 1/8 of all facts there (seed 5: 16.1 %,
    // against 5.4 % under 'moves', nearly all of them solution steps).
    expect(every['/']).toBeGreaterThan(0.125);
    expect(every['/']).toBeLessThan(0.125 + 0.1);
    expect(moves['/']).toBeLessThan(0.07);
    expect(every['/']).toBeGreaterThan(2.5 * moves['/']);
    for (const op of ['+', '*', '-']) expect(every[op]).toBeGreaterThan(0.125);
  });

  it("a guessing search's stream redraws the stated share of its problems until the state it solves has a single solution", () => {
    const guess: CountdownStreamOptions = {
      n: 4,
      reasoning: 'search-guess',
      numberFormat: 'reversed',
      maxBacks: 12,
      searchOrder: 'products-last',
      rejectInexact: true,
      judgeLongProducts: true,
      warmupShare: 0.25,
      warmupSteps: 2,
    };
    const share = (o: CountdownStreamOptions) => {
      const problems = [0, 1, 2, 3, 4, 5].flatMap((step) => batchAt(o, 7, step, 48)).filter((e) => !isFact(e));
      return problems.filter((e) => singleSolutionGuess(e, 'reversed')).length / problems.length;
    };
    // Share 0 leaves the stream as it was: the same batches as without the setting.
    expect(batchAt({ ...guess, singleSolutionShare: 0 }, 7, 1, 48)).toEqual(batchAt(guess, 7, 1, 48));
    const base = share(guess);
    expect(base).toBeGreaterThan(0.2); // single-solution states are common, and not the rule
    expect(base).toBeLessThan(0.8);
    expect(share({ ...guess, singleSolutionShare: 1 })).toBe(1);
    // Half redrawn: about half plus the other half's natural share (264 problems; ± 4 binomial sd).
    const half = share({ ...guess, singleSolutionShare: 0.5 });
    expect(Math.abs(half - (0.5 + 0.5 * base))).toBeLessThan(4 * Math.sqrt((0.25 * (1 - base)) / 264) + 0.02);
    const o = { ...guess, singleSolutionShare: 0.5 };
    expect(batchAt(o, 7, 3, 48)).toEqual(batchAt(o, 7, 3, 48)); // from the seed, also after a resume
  });
});
