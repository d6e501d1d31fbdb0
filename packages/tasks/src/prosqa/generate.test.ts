import { beforeAll, describe, expect, it } from 'vitest';
import type { Example } from '../example.js';
import { compareProsqa } from './compare.js';
import { DEFAULT_PROSQA_GEN_CONFIG, generateProsqa } from './generate.js';
import { prosqaViolations } from './invariants.js';
import { loadProsqa } from './load.js';
import { prosqaStats } from './stats.js';

let valid: Example[];
let test: Example[];
beforeAll(async () => {
  valid = (await loadProsqa('valid')).examples;
  test = (await loadProsqa('test')).examples;
});

describe('ProsQA generator', () => {
  it('is deterministic for a seed and differs across seeds', () => {
    const a = generateProsqa({ count: 30, seed: 7 });
    expect(generateProsqa({ count: 30, seed: 7 })).toEqual(a);
    expect(generateProsqa({ count: 30, seed: 8 })[0].question).not.toBe(a[0].question);
    expect(a[0].id).toBe('prosqa-gen/train/0');
  });

  it('matches the real valid + test statistics within the stated tolerances (4,000 examples, seed 0)', () => {
    const exclude = new Set([...valid, ...test].map((e) => e.question));
    const gen = generateProsqa({ count: 4000, seed: 0, exclude });
    expect(gen.some((e) => exclude.has(e.question))).toBe(false);
    const rows = compareProsqa(
      prosqaStats(gen),
      prosqaStats(valid),
      prosqaStats(test),
      prosqaStats([...valid, ...test]),
    );
    expect(rows.filter((r) => !r.ok)).toEqual([]);
    expect(rows.length).toBeGreaterThan(40);
  });

  it('satisfies every invariant of the real files', () => {
    const gen = generateProsqa({ count: 300, seed: 3 });
    expect(gen.flatMap((e) => prosqaViolations(e).map((v) => `${e.id}: ${v}`))).toEqual([]);
  });

  it('the literal reading of the transcription does not match (why the defaults differ)', () => {
    const literal = {
      ...DEFAULT_PROSQA_GEN_CONFIG,
      admissibility: 'exclude' as const,
      depthRule: 'max' as const,
      pNotFromNode0: 0.35,
      extraPersonRate: 0.05,
    };
    const gen = generateProsqa({ count: 1500, seed: 0, config: literal });
    const rows = compareProsqa(
      prosqaStats(gen),
      prosqaStats(valid),
      prosqaStats(test),
      prosqaStats([...valid, ...test]),
    );
    const failing = rows.filter((r) => !r.ok).map((r) => r.statistic);
    expect(failing).toEqual(
      expect.arrayContaining([
        'persons reaching neg_target = 1 (%)',
        'target reachable from another person (%)',
        'longest path from a person (mean)',
        'root is node 1 (%)',
      ]),
    );
  });
});
