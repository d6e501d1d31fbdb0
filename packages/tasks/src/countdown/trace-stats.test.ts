import { describe, expect, it } from 'vitest';
import { generateCountdown, type CountdownMeta } from './generate.js';
import { searchTrace } from './reasoning.js';
import { traceStats } from './trace-stats.js';

const BASE = { n: 3, count: 300, seed: 7, reasoning: 'search-check', maxBacks: 12, numberFormat: 'reversed' } as const;

describe('Countdown trace statistics', () => {
  it('counts the dead ends of the full search when the budget is never reached', () => {
    const s = traceStats({ ...BASE, order: 'listed' });
    let backs = 0;
    for (const e of generateCountdown({ n: 3, count: 300, seed: 7, split: 'train' })) {
      const m = e.meta as CountdownMeta;
      const t = searchTrace(m.nums, m.target, e.steps, { maxBacks: Infinity, writeChecks: true, order: 'listed' });
      backs += t.lines.filter((l) => l.startsWith('back')).length;
    }
    expect(s.outOfBudget).toBe(0);
    expect(s.deadEnds).toBeCloseTo(backs / 300, 10);
    expect(s.maxChars).toBeGreaterThanOrEqual(s.meanChars);
  });

  it('with no budget every search that meets a dead end runs out, and shows none', () => {
    const full = traceStats({ ...BASE, order: 'closest' });
    const none = traceStats({ ...BASE, order: 'closest', maxBacks: 0 });
    expect(none.deadEnds).toBe(0);
    expect(none.outOfBudget).toBeGreaterThan(0.3);
    expect(none.outOfBudget).toBeLessThan(1);
    expect(none.meanChars).toBeLessThan(full.meanChars);
  });

  it('the products-last order writes a long product in far fewer traces than the listed order', () => {
    const listed = traceStats({ ...BASE, order: 'listed' });
    const last = traceStats({ ...BASE, order: 'products-last' });
    expect(listed.withLongProduct).toBeGreaterThan(0.4);
    expect(last.withLongProduct).toBeLessThan(0.05);
    expect(last.longProducts).toBeLessThan(listed.longProducts);
  });

  it('a judged Countdown-4 search is short and never runs out of its budget', () => {
    const checked = traceStats({ ...BASE, n: 4, count: 200, order: 'products-last' });
    const judged = traceStats({ ...BASE, n: 4, count: 200, order: 'products-last', reasoning: 'search-judged' });
    expect(checked.outOfBudget).toBeGreaterThan(0.3);
    expect(judged.outOfBudget).toBe(0);
    expect(judged.judged).toBeGreaterThan(1);
    expect(checked.judged).toBe(0);
    expect(judged.meanChars).toBeLessThan(checked.meanChars / 1.5);
  });

  it('a guided Countdown-4 search that judges long products computes fewer of them and is shorter', () => {
    const guided = { ...BASE, n: 4, count: 200, order: 'products-last', reasoning: 'search-guided' } as const;
    const computed = traceStats({ ...guided, rejectInexact: true });
    const judging = traceStats({ ...guided, rejectInexact: true, judgeLongProducts: true });
    expect(computed.judgedProducts).toBe(0);
    expect(judging.judgedProducts).toBeGreaterThan(0.3); // 0.64 a trace over 1,000 (trace-stats --n 4 --guided --reject-inexact --judge-products)
    expect(judging.longProducts).toBeLessThan(computed.longProducts / 2);
    expect(judging.meanChars).toBeLessThan(computed.meanChars);
  });

  it("counts a guessing search's single-solution solved states, whose traces are longer", () => {
    const guess = { ...BASE, n: 4, count: 200, order: 'products-last', reasoning: 'search-guess' } as const;
    const s = traceStats({ ...guess, rejectInexact: true, judgeLongProducts: true });
    // 53.5 % of 1,000 (trace-stats --n 4 --guess --reject-inexact --judge-products): about half.
    expect(s.singleSolution!.share).toBeGreaterThan(0.35);
    expect(s.singleSolution!.share).toBeLessThan(0.7);
    expect(s.singleSolution!.deadEnds).toBeGreaterThan(s.deadEnds);
    expect(s.singleSolution!.meanChars).toBeGreaterThan(s.meanChars);
    expect(traceStats({ ...guess, reasoning: 'search-guided' }).singleSolution).toBeUndefined();
  });
});
