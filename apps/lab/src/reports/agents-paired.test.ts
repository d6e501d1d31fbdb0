import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { VOTE_ROW } from '@telepath/thought-comm';
import { agentsBootstrap } from './agents-paired.js';

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

describe('agentsBootstrap', () => {
  it('pairs every row with the vote on the same questions: equal rows differ by 0, a row right on 30 more of 100 by +0.30 with an interval above 0', async () => {
    const lines = Array.from({ length: 100 }, (_, i) => ({
      [VOTE_ROW]: i < 50 ? 1 : 0,
      same: i < 50 ? 1 : 0,
      better: i < 80 ? 1 : 0,
    }));
    const d = await agentsBootstrap(experiment({ 0: lines, 1: lines }), [0, 1]);
    expect([...d.keys()].sort()).toEqual(['better', VOTE_ROW, 'same'].sort());
    expect(d.get(VOTE_ROW)!.vsVote).toBeUndefined();
    expect(d.get('same')!.vsVote).toMatchObject({ diff: 0, lo: 0, hi: 0 });
    const better = d.get('better')!.vsVote!;
    expect(better.diff).toBeCloseTo(0.3, 12);
    expect(better.lo).toBeGreaterThan(0.15);
    expect(better.hi).toBeLessThan(0.45);
    expect(await agentsBootstrap(experiment({ 0: lines, 1: lines }), [0, 1])).toEqual(d); // seeded: rebuilt identically
  });

  it('gives each row the spread of its accuracy over the questions, which two seeds answering alike do not shrink', async () => {
    const lines = Array.from({ length: 400 }, (_, i) => ({ [VOTE_ROW]: i % 2 }));
    const binomialSe = Math.sqrt((0.5 * 0.5) / 400); // 0.025
    const one = (await agentsBootstrap(experiment({ 0: lines }), [0])).get(VOTE_ROW)!.sd;
    const two = (await agentsBootstrap(experiment({ 0: lines, 1: lines }), [0, 1])).get(VOTE_ROW)!.sd;
    expect(one).toBeGreaterThan(0.8 * binomialSe);
    expect(one).toBeLessThan(1.2 * binomialSe);
    expect(two).toBeCloseTo(one, 12); // same draws of questions, identical seeds: no shrinking by √2
  });

  it('gives nothing for records written before the per-question scores, and names the file and line of a bad score', async () => {
    const old = mkdtempSync(join(tmpdir(), 'agents-paired-old-'));
    mkdirSync(join(old, 's0'));
    writeFileSync(join(old, 's0', 'samples.jsonl'), JSON.stringify({ id: 'q0', round0: ['1'] }) + '\n');
    expect((await agentsBootstrap(old, [0])).size).toBe(0);
    expect((await agentsBootstrap(old, [1])).size).toBe(0); // a seed without samples
    const bad = experiment({ 0: [{ [VOTE_ROW]: 1 }, { [VOTE_ROW]: 2 }] });
    await expect(agentsBootstrap(bad, [0])).rejects.toThrow(
      /s0\/samples\.jsonl:2: correct\["majority vote, no communication"\] must be 0 or 1, got 2/,
    );
  });
});
