import { expect, it } from 'vitest';
import type { ArmSummary } from '../running/arm-summary.js';
import { aggregate, tableText } from './table.js';

const base = {
  experiment: 'e',
  method: 'soft-embedding',
  total: 100,
  reasoningLength: 4,
  reasoningKind: 'latents',
  msPerExample: 2,
  trainSeconds: 10,
  params: 5,
  backend: 'cpu',
  correct: 0,
};

it('averages seeds and their binomial errors (seeds share the questions), and adds one row per latent control', () => {
  const rs: ArmSummary[] = [
    {
      ...base,
      arm: 'soft',
      armIndex: 0,
      seed: 0,
      accuracy: 0.5,
      stderr: 0.05,
      controls: { zero: { accuracy: 0.1, stderr: 0.03, correct: 10, total: 100 } },
    },
    {
      ...base,
      arm: 'soft',
      armIndex: 0,
      seed: 1,
      accuracy: 0.7,
      stderr: 0.05,
      controls: { zero: { accuracy: 0.3, stderr: 0.04, correct: 30, total: 100 } },
    },
  ];
  const rows = aggregate(rs);
  expect(rows.map((r) => r.arm)).toEqual(['soft', 'soft [zero]']);
  expect(rows[0].accuracy).toBeCloseTo(0.6, 12);
  expect(rows[0].stderr).toBeCloseTo(0.05, 12);
  expect(rows[1].accuracy).toBeCloseTo(0.2, 12);
  expect(rows[1].stderr).toBeCloseTo(0.035, 12);
  const text = tableText(rows);
  expect(text).toContain('soft [zero]');
  expect(text).toContain('–');
});

it('shows the share of sound written steps only when some arm was checked', () => {
  const cot = { ...base, method: 'cot', reasoningKind: 'tokens', armIndex: 0, accuracy: 0.3, stderr: 0.05 };
  const unchecked = aggregate([{ ...cot, arm: 'cot', seed: 0 }]);
  expect(tableText(unchecked)).not.toContain('sound steps');
  const rows = aggregate([
    { ...cot, arm: 'cot', seed: 0, validReasoning: 0.2 },
    { ...cot, arm: 'cot', seed: 1, validReasoning: 0.4 },
    { ...cot, arm: 'no-cot', armIndex: 1, seed: 0, reasoningKind: 'none' },
  ]);
  expect(rows[0].validReasoning).toBeCloseTo(0.3, 12);
  expect(Number.isNaN(rows[1].validReasoning)).toBe(true);
  const text = tableText(rows);
  expect(text).toContain('sound steps %');
  expect(text).toMatch(/cot .* 30\.0 /);
});

it('takes the means over seeds to the last bit as the loop it replaced did: the sum in seed order over the seeds', () => {
  // The loop the arquero rollup replaced (table.ts before issue 27), as the reference.
  const loopMean = (xs: number[]) => xs.reduce((a, x) => a + x, 0) / xs.length;
  const diagnostics = { total: 10, chains: {}, withChain: 0, agrees: 0, hitCap: 0 };
  const seed = (arm: string, armIndex: number, s: number, acc: number, se: number, extra: object = {}) => ({
    ...base,
    arm,
    armIndex,
    seed: s,
    accuracy: acc,
    stderr: se,
    msPerExample: 0.1 * (s + 1),
    trainSeconds: 1 / (s + 3),
    reasoningLength: 0.1 + s / 7,
    ...extra,
  });
  // Read back as from summary.json: a NaN was written as null (counted as 0 by the loop); a missing value is NaN.
  const rs = JSON.parse(
    JSON.stringify([
      seed('a', 0, 0, 0.1, 0.01, {
        tests: { val: { accuracy: 0.3, stderr: 0.02, correct: 3, total: 10, diagnostics } },
        controls: { zero: { accuracy: 0.2, stderr: 0.03, correct: 2, total: 10 } },
      }),
      seed('a', 0, 1, 0.2, 0.02, {
        tests: { val: { accuracy: 0.1, stderr: 0.07, correct: 1, total: 10, diagnostics } },
        controls: { zero: { accuracy: 0.7, stderr: 1 / 3, correct: 7, total: 10 } },
      }),
      seed('a', 0, 2, 0.3, 1 / 3, {
        tests: { val: { accuracy: 1 / 3, stderr: 0.1, correct: 3, total: 10, diagnostics } },
      }),
      seed('b', 1, 0, 1 / 3, 0.1, { validReasoning: 0.1, msPerExample: null }),
      seed('b', 1, 1, 0.7, 0.2, { validReasoning: 0.2 }),
      seed('c', 2, 0, 0.15, 0.05, { validReasoning: 0.3 }),
      seed('c', 2, 1, 0.15, 0.05),
    ]),
  ) as ArmSummary[];
  const rows = aggregate(rs);
  expect(rows.map((r) => [r.arm, r.seeds, r.n])).toEqual([
    ['a', 3, 300],
    ['a [val]', 3, 30],
    ['a [zero]', 2, 20],
    ['b', 2, 200],
    ['c', 2, 200],
  ]);
  const of = (arm: string) => rs.filter((r) => r.arm === arm);
  const a = of('a');
  expect(rows[0].accuracy).toBe(loopMean([0.1, 0.2, 0.3])); // 0.20000000000000004, where a running mean gives 0.2
  expect(rows[0].stderr).toBe(loopMean([0.01, 0.02, 1 / 3]));
  for (const k of ['msPerExample', 'trainSeconds', 'reasoningLength'] as const)
    expect(rows[0][k]).toBe(loopMean(a.map((r) => r[k])));
  expect(rows[1].accuracy).toBe(loopMean([0.3, 0.1, 1 / 3]));
  expect(rows[1].stderr).toBe(loopMean([0.02, 0.07, 0.1]));
  expect(rows[2].accuracy).toBe(loopMean([0.2, 0.7]));
  expect(rows[2].stderr).toBe(loopMean([0.03, 1 / 3]));
  expect(rows[3].accuracy).toBe(loopMean([1 / 3, 0.7]));
  expect(rows[3].validReasoning).toBe(loopMean([0.1, 0.2]));
  expect(rows[3].msPerExample).toBe(0.2 / 2); // null counted as 0, as before
  expect(rows[4].validReasoning).toBeNaN(); // one seed without it
});

it('gives no rows, and the table says so, when no arm has finished', () => {
  expect(aggregate([])).toEqual([]);
  expect(tableText(aggregate([]))).toBe('(no finished arms)');
});
