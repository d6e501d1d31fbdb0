import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultDatasetsDir } from '../files.js';
import { prosqaViolations } from './invariants.js';
import { loadProsqa, parseProsqaJson, toProsqaRecord } from './load.js';
import { prosqaStats } from './stats.js';
import { prosqaTask } from './task.js';

describe('ProsQA loader on the real files', () => {
  it('loads 300 / 500 records that round-trip to the original JSON', async () => {
    for (const [split, n] of [
      ['valid', 300],
      ['test', 500],
    ] as const) {
      const r = await loadProsqa(split);
      expect(r.examples.length).toBe(n);
      expect(r.files[0].changed).toBe(false);
      const original = JSON.parse(await fs.readFile(r.files[0].path, 'utf8'));
      expect(r.examples.map(toProsqaRecord)).toEqual(original);
    }
  });

  it('every real example satisfies the invariants of docs/datasets.md §4', async () => {
    const all = [...(await loadProsqa('valid')).examples, ...(await loadProsqa('test')).examples];
    const bad = all.map((e) => [e.id, prosqaViolations(e)] as const).filter(([, v]) => v.length > 0);
    expect(bad).toEqual([]);
  });

  it('measures the published statistics (docs/datasets.md §5.2)', async () => {
    const v = prosqaStats((await loadProsqa('valid')).examples);
    const t = prosqaStats((await loadProsqa('test')).examples);
    expect(v.nodes.mean).toBeCloseTo(22.82, 2);
    expect(t.edges.mean).toBeCloseTo(35.84, 2);
    expect(v.stepsPct['3']).toBeCloseTo(41.33, 1);
    expect(t.personsReachingNegPct['1']).toBeCloseTo(95.0, 1);
    expect(v.shortestPaths.mean).toBeCloseTo(1.61, 2);
    expect(t.questionChars.max).toBe(1376);
    expect(v.personNames.length + t.conceptNames.length).toBe(17 + 38);
  });

  it('scores the chosen concept', async () => {
    const ex = (await loadProsqa('valid')).examples[0];
    expect(prosqaTask.isCorrect(ex, 'Tom is a terpus.\n### Tom is a lempus.')).toBe(true);
    expect(prosqaTask.isCorrect(ex, '### lempus')).toBe(true);
    expect(prosqaTask.isCorrect(ex, '### Tom is a scrompus.')).toBe(false);
    expect(prosqaTask.isCorrect(ex, '')).toBe(false);
  });

  it('names file, line, record and field of a bad record, and counts skips', async () => {
    const recs = JSON.parse(await fs.readFile(path.join(defaultDatasetsDir(), 'prosqa/prosqa_valid.json'), 'utf8'));
    recs[1].edges[3] = [0, 99];
    delete recs[2].answer;
    const text = JSON.stringify(recs);
    expect(() => parseProsqaJson(text, 'p.json', 'x', [])).toThrow(
      /^p\.json:1 field "\[1\]\.edges\[3\]\[1\]": expected a node id/,
    );
    const skipped: never[] = [];
    const out = parseProsqaJson(text, 'p.json', 'x', skipped, { skipBad: true });
    expect(out.length).toBe(298);
    expect(skipped).toEqual([
      expect.objectContaining({ field: '[1].edges[3][1]' }),
      expect.objectContaining({ field: '[2].answer' }),
    ]);
    // Pretty-printed: the line of each record is reported.
    const pretty = JSON.stringify(recs.slice(0, 3), null, 1);
    expect(() => parseProsqaJson(pretty, 'p.json', 'x', [])).toThrow(
      new RegExp(`^p\\.json:${pretty.split('\n').findIndex((l, i) => i > 1 && l === ' {') + 1} field "\\[1\\]`),
    );
  });

  it('says where a missing file comes from', async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'telepath-prosqa-'));
    await expect(loadProsqa('test', { datasetsDir: dir })).rejects.toThrow(/prosqa_test\.json.*section "ProsQA"/);
  });
});
