import { expect, it } from 'vitest';
import type { ArmSummary } from '../running/run-arm.js';
import { aggregate, tableText } from './table.js';

const base = { experiment: 'e', method: 'soft-embedding', total: 100, reasoningLength: 4, reasoningKind: 'latents', msPerExample: 2, trainSeconds: 10, params: 5, backend: 'cpu', correct: 0 };

it('averages seeds, combines binomial errors, and adds one row per latent control', () => {
  const rs: ArmSummary[] = [
    { ...base, arm: 'soft', armIndex: 0, seed: 0, accuracy: 0.5, stderr: 0.05, controls: { zero: { accuracy: 0.1, stderr: 0.03, correct: 10, total: 100 } } },
    { ...base, arm: 'soft', armIndex: 0, seed: 1, accuracy: 0.7, stderr: 0.05, controls: { zero: { accuracy: 0.3, stderr: 0.04, correct: 30, total: 100 } } },
  ];
  const rows = aggregate(rs);
  expect(rows.map((r) => r.arm)).toEqual(['soft', 'soft [zero]']);
  expect(rows[0].accuracy).toBeCloseTo(0.6, 12);
  expect(rows[0].stderr).toBeCloseTo(Math.sqrt(0.05 ** 2 * 2) / 2, 12);
  expect(rows[1].accuracy).toBeCloseTo(0.2, 12);
  expect(rows[1].stderr).toBeCloseTo(0.025, 12);
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
