import { describe, expect, it } from 'vitest';
import { benchExamples, medianStepMs } from './bench.js';

describe('bench helpers', () => {
  it('makes the same examples from a seed, prompts in the asked range, words of one piece', () => {
    const a = benchExamples(50, [10, 20], 3, 4);
    expect(benchExamples(50, [10, 20], 3, 4)).toEqual(a);
    expect(benchExamples(50, [10, 20], 3, 5)).not.toEqual(a);
    for (const ex of a) {
      const words = ex.question.split(' ');
      expect(words.length).toBeGreaterThanOrEqual(10);
      expect(words.length).toBeLessThan(20);
      expect(ex.steps).toHaveLength(3);
      expect(words.every((w) => /^w[a-j][a-f]$/.test(w))).toBe(true);
    }
  });

  it('times the median of the calls after two warm-up calls', async () => {
    const delays = [50, 50, 1, 90, 2]; // two warm-ups, then 1, 90, 2 ms: median 2 (the mean would be 31)
    let calls = 0;
    const ms = await medianStepMs(() => new Promise((done) => setTimeout(done, delays[calls++])), 3);
    expect(calls).toBe(5);
    expect(ms).toBeLessThan(25);
  });
});
