import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ArmSummary } from '../running/arm-summary.js';
import { readOutcomes } from './outcomes.js';

/** A run dir <runs>/exp/<arm>/s0 holding `lines` as its samples.jsonl; → the runs dir and its summary. */
function runWith(arm: string, lines: object[]): { runs: string; summary: ArmSummary } {
  const runs = mkdtempSync(join(tmpdir(), 'lab-outcomes-'));
  const dir = join(runs, 'exp', arm, 's0');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'samples.jsonl'), lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
  return { runs, summary: { experiment: 'exp', arm, seed: 0 } as ArmSummary };
}

describe('per-question outcomes from the records', () => {
  it("score a question by its share of sampled passes right where the run wrote it, else by the first pass's answer", async () => {
    const { runs, summary } = runWith('colar', [
      { id: 'q0', correct: true, passScore: 0.6 },
      { id: 'q1', correct: false, passScore: 0.2 },
      { id: 'q2', correct: true },
      { id: 'q3', correct: false },
    ]);
    const o = (await readOutcomes(runs, [summary])).get('colar')!;
    expect(o.seeds).toEqual([0]);
    expect([...o.correct[0]]).toEqual([
      ['q0', 0.6],
      ['q1', 0.2],
      ['q2', 1],
      ['q3', 0],
    ]);
  });

  it('refuse a share outside [0, 1], naming the file and line', async () => {
    const { runs, summary } = runWith('colar', [
      { id: 'q0', correct: true, passScore: 0.6 },
      { id: 'q1', correct: true, passScore: 3 },
    ]);
    await expect(readOutcomes(runs, [summary])).rejects.toThrow(
      /samples\.jsonl:2: "passScore" must be a number in \[0, 1\], got 3/,
    );
  });
});
