import { Rng } from '@telepath/core';
import { describe, expect, it } from 'vitest';
import { pairedDifference, Resampler, seedMeanSpread, type Outcomes } from './bootstrap.js';

/** Outcomes of `seeds` seeds on questions q0…q(n−1), scored `right(question, seed)` (true = 1, false = 0, or a share of passes). */
function outcomes(n: number, seeds: number[], right: (q: number, s: number) => boolean | number): Outcomes {
  return {
    seeds,
    correct: seeds.map(
      (s) => new Map(Array.from({ length: n }, (_, q) => [`q${q}`, Number(right(q, s))] as [string, number])),
    ),
  };
}

describe('paired bootstrap', () => {
  it('identical arms differ by exactly 0 with an interval of 0 (every draw pairs the same answers)', () => {
    const a = outcomes(300, [0, 1, 2], (q, s) => (q * 7 + s) % 3 === 0);
    const r = pairedDifference(a, a, new Resampler(new Rng(1)));
    expect(r).toEqual({ diff: 0, lo: 0, hi: 0, questions: 300 });
  });
  it('two arms with the same accuracy on different questions get an interval around 0', () => {
    const a = outcomes(400, [0], (q) => q % 2 === 0);
    const b = outcomes(400, [0], (q) => q % 2 === 1);
    const r = pairedDifference(a, b, new Resampler(new Rng(2)));
    expect(r.diff).toBe(0);
    expect(r.lo).toBeLessThan(0);
    expect(r.hi).toBeGreaterThan(0);
    // Unpaired they disagree on every question: the interval is ≈ ±2·sqrt(1/n) = ±0.1.
    expect(r.hi - r.lo).toBeGreaterThan(0.15);
    expect(r.hi - r.lo).toBeLessThan(0.25);
  });
  it("an arm right on a strict superset of the baseline's questions gets an interval above 0", () => {
    const base = outcomes(500, [0, 1], (q) => q % 4 === 0); // 25 %
    const arm = outcomes(500, [0, 1], (q) => q % 4 === 0 || q % 20 === 1); // + 5 points on other questions
    const r = pairedDifference(arm, base, new Resampler(new Rng(3)));
    expect(r.diff).toBeCloseTo(0.05, 10);
    expect(r.lo).toBeGreaterThan(0);
    expect(r.hi).toBeGreaterThan(r.diff);
    expect(r.lo).toBeLessThan(r.diff);
  });
  it('pairs on the questions both arms answered, and is reproducible from the Rng seed', () => {
    const a = outcomes(100, [0], () => true);
    const b = { seeds: [0], correct: [new Map([...outcomes(50, [0], () => false).correct[0]])] };
    const r = pairedDifference(a, b, new Resampler(new Rng(4)));
    expect(r.questions).toBe(50);
    expect(r.diff).toBe(1);
    expect(pairedDifference(a, b, new Resampler(new Rng(4)))).toEqual(r);
  });
});

describe('scores that are shares of sampled passes', () => {
  it('pair by their means: every question 3 of 5 passes right against 2 of 4 is +10 points with no spread', () => {
    const a = outcomes(400, [0], () => 0.6);
    const b = outcomes(400, [0], () => 0.5);
    const r = pairedDifference(a, b, new Resampler(new Rng(6)));
    expect(r.questions).toBe(400);
    for (const x of [r.diff, r.lo, r.hi]) expect(x).toBeCloseTo(0.1, 10);
    const s = seedMeanSpread(a, new Resampler(new Rng(6)));
    expect(s.accuracy).toBeCloseTo(0.6, 10);
    expect(s.sd).toBeCloseTo(0, 10);
  });
  it("mixed with 0/1 answers: the difference is the means', the interval that of a hand bootstrap over questions", () => {
    const a = outcomes(300, [0], (q) => (q % 3) / 2); // 0, 0.5, 1: mean 0.5
    const b = outcomes(300, [0], (q) => q % 3 === 2); // 1 on the questions where a is 1: mean 1/3
    const r = pairedDifference(a, b, new Resampler(new Rng(7)));
    expect(r.diff).toBeCloseTo(0.5 - 1 / 3, 12);
    // Per question a − b is 0, 0.5, 0 (one in three 0.5): the bootstrap mean's sd ≈ sqrt(var / n).
    const sd = Math.sqrt((0.25 * (1 / 3) * (2 / 3)) / 300);
    expect(r.hi - r.lo).toBeGreaterThan(2 * 1.96 * sd * 0.85);
    expect(r.hi - r.lo).toBeLessThan(2 * 1.96 * sd * 1.15);
  });
});

describe('spread of a seed mean', () => {
  it('counts a question answered under several seeds once: identical seeds give the one-seed spread', () => {
    const one = outcomes(400, [0], (q) => q % 5 < 2); // 40 %
    const three = outcomes(400, [0, 1, 2], (q) => q % 5 < 2);
    const s1 = seedMeanSpread(one, new Resampler(new Rng(5)));
    const s3 = seedMeanSpread(three, new Resampler(new Rng(5)));
    expect(s1.accuracy).toBeCloseTo(0.4, 10);
    expect(s1.sd).toBeGreaterThan(0.02); // sqrt(.4·.6/400) = 0.0245
    expect(s1.sd).toBeLessThan(0.029);
    // Three copies of the same answers carry no more information than one: the spread stays ≈ 0.0245
    // (the old sqrt(Σ se²)/k formula would have given 0.0245/√3 = 0.014).
    expect(s3.sd).toBeGreaterThan(0.02);
    expect(s3.n).toBe(1200);
  });
  it('seeds that disagree widen the spread', () => {
    const agree = outcomes(400, [0, 1, 2], (q) => q % 2 === 0);
    const differ = outcomes(400, [0, 1, 2], (q, s) => (s === 0 ? q % 10 < 2 : s === 1 ? q % 2 === 0 : q % 10 < 8));
    expect(seedMeanSpread(differ, new Resampler(new Rng(6))).sd).toBeGreaterThan(
      2 * seedMeanSpread(agree, new Resampler(new Rng(6))).sd,
    );
  });
});
