import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { VOTE_ROW } from '@telepath/thought-comm';
import { agentsVsVote } from './agents-paired.js';

/** An experiment folder whose seeds hold samples.jsonl lines { id, correct }. */
function experiment(seeds: Record<number, Record<string, number>[]>): string {
  const dir = mkdtempSync(join(tmpdir(), 'agents-paired-'));
  for (const [seed, lines] of Object.entries(seeds)) {
    mkdirSync(join(dir, `s${seed}`));
    writeFileSync(
      join(dir, `s${seed}`, 'samples.jsonl'),
      lines.map((correct, i) => JSON.stringify({ id: `q${i}`, correct })).join('\n') + '\n',
    );
  }
  return dir;
}

describe('agentsVsVote', () => {
  it('pairs every row with the vote on the same questions: equal rows differ by 0, a row right on 30 more of 100 by +0.30 with an interval above 0', async () => {
    const lines = Array.from({ length: 100 }, (_, i) => ({
      [VOTE_ROW]: i < 50 ? 1 : 0,
      same: i < 50 ? 1 : 0,
      better: i < 80 ? 1 : 0,
    }));
    const d = await agentsVsVote(experiment({ 0: lines, 1: lines }), [0, 1]);
    expect([...d.keys()].sort()).toEqual(['better', 'same']);
    expect(d.get('same')).toMatchObject({ diff: 0, lo: 0, hi: 0 });
    const better = d.get('better')!;
    expect(better.diff).toBeCloseTo(0.3, 12);
    expect(better.lo).toBeGreaterThan(0.15);
    expect(better.hi).toBeLessThan(0.45);
    expect(await agentsVsVote(experiment({ 0: lines, 1: lines }), [0, 1])).toEqual(d); // seeded: rebuilt identically
  });

  it('gives nothing for records written before the per-question scores, and names the file and line of a bad score', async () => {
    const old = mkdtempSync(join(tmpdir(), 'agents-paired-old-'));
    mkdirSync(join(old, 's0'));
    writeFileSync(join(old, 's0', 'samples.jsonl'), JSON.stringify({ id: 'q0', round0: ['1'] }) + '\n');
    expect((await agentsVsVote(old, [0])).size).toBe(0);
    expect((await agentsVsVote(old, [1])).size).toBe(0); // a seed without samples
    const bad = experiment({ 0: [{ [VOTE_ROW]: 1 }, { [VOTE_ROW]: 2 }] });
    await expect(agentsVsVote(bad, [0])).rejects.toThrow(
      /s0\/samples\.jsonl:2: correct\["majority vote, no communication"\] must be 0 or 1, got 2/,
    );
  });
});
