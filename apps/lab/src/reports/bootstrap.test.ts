import { Rng } from '@telepath/core';
import { describe, expect, it } from 'vitest';
import { pairedDifference, Resampler, seedMeanSpread, type Outcomes } from './bootstrap.js';

/** Outcomes of `seeds` seeds on questions q0…q(n−1), correct where `right(question, seed)`. */
function outcomes(n: number, seeds: number[], right: (q: number, s: number) => boolean): Outcomes {
  return {
    seeds,
    correct: seeds.map(
      (s) => new Map(Array.from({ length: n }, (_, q) => [`q${q}`, right(q, s)] as [string, boolean])),
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
