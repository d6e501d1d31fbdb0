import { execFileSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { generateCountdown } from './generate.js';
import { renderCountdown } from './reasoning.js';
import {
  BY_PLACE,
  firstWrongLine,
  formatSearchStats,
  goldDeadEnds,
  lineArithmetic,
  readSearchSamples,
  searchStats,
} from './search-stats.js';
import { countdownTask } from './task.js';

describe('Countdown search stats', () => {
  it('buckets generations by the dead ends they write and counts repeated lines and verdicts', () => {
    const gold = generateCountdown({ n: 3, count: 300, seed: 2, split: 'train' }).map((ex) => {
      const r = renderCountdown(ex, {
        reasoning: 'search-check',
        numberFormat: 'reversed',
        maxBacks: 12,
        searchOrder: 'closest',
      });
      const text = `${r.steps.join('\n')}\n### ${r.answer}`;
      return { text, correct: true, reason: countdownTask.checkReasoning!(r, r.steps.join('\n')).reason };
    });
    const s = searchStats(gold);
    expect(s.total).toBe(300);
    expect(s.sound).toBe(300);
    expect(s.reasons).toEqual({ ok: 300 });
    expect(s.byDeadEnds.reduce((a, b) => a + b.count, 0)).toBe(300);
    const backs = gold.map((g) => g.text.split('\n').filter((l) => l.startsWith('back')).length);
    expect(s.byDeadEnds[0].count).toBe(backs.filter((b) => b === 0).length);
    expect(s.byDeadEnds[3].count).toBe(backs.filter((b) => b >= 3 && b <= 5).length);
    expect(s.byDeadEnds.slice(1).some((b) => b.count > 0)).toBe(true);
    const looping = '29+11=40 [40 62]\n62-40=22 [22]\nback [29 11 62]\n29+11=40 [40 62]\n### 29+11';
    const t = searchStats([
      { text: looping, correct: false, reason: 'unused-numbers' },
      { text: '62-18=44 [44]\n### 62-18', correct: true },
    ]);
    expect(t).toMatchObject({ total: 2, correct: 1, sound: 0, repeatLine: 1, repeatLineCorrect: 0 });
    expect(t.byDeadEnds.map((b) => [b.count, b.correct])).toEqual([
      [1, 1],
      [1, 0],
      [0, 0],
      [0, 0],
      [0, 0],
    ]);
    expect(t.reasons).toEqual({ 'unused-numbers': 1 });
    expect(t.byGoldDeadEnds.every((b) => b.count === 0)).toBe(true); // no sample knew its full search
  });

  it("rebuilds a question's full search in the run's number format and search order", () => {
    // Listed: 29+11=40 and 29*11=319 are dead ends before 29-11=18 (reasoning.test.ts).
    expect(goldDeadEnds('Make 44 from 29 11 62.', 'plain', { order: 'listed' })).toBe(2);
    expect(goldDeadEnds('Make 44 from 92 11 26.', 'reversed', { order: 'listed' })).toBe(2); // 29 11 62 written reversed
    expect(goldDeadEnds('Make 44 from 29 11 62.', 'plain', { order: 'closest' })).toBe(2); // 40 and 51 are closer than 33
    expect(goldDeadEnds('not a question', 'plain', { order: 'closest' })).toBeNull();
    let differ = 0;
    for (const e of generateCountdown({ n: 3, count: 100, seed: 4, split: 'val' }))
      for (const searchOrder of ['closest', 'listed'] as const) {
        const r = renderCountdown(e, { reasoning: 'search', numberFormat: 'reversed', maxBacks: 12, searchOrder });
        const written = r.steps.filter((l) => l.startsWith('back')).length;
        expect(goldDeadEnds(r.question, 'reversed', { order: searchOrder })).toBe(written);
        if (searchOrder === 'listed' && written !== goldDeadEnds(r.question, 'reversed', { order: 'closest' }))
          differ++;
      }
    expect(differ).toBeGreaterThan(20);
  });

  it('reads samples.jsonl, naming the file and line of a bad row, and runs from the command line', async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'telepath-search-stats-'));
    const file = path.join(dir, 'samples.jsonl');
    const row = { id: 'x', text: '62-18=44 [44]\n### 62-18', correct: true, reasoning: { ok: true, reason: 'ok' } };
    await fs.writeFile(file, `${JSON.stringify(row)}\n`);
    expect(readSearchSamples(file)).toEqual([{ text: row.text, correct: true, reason: 'ok' }]);
    const cli = path.resolve(import.meta.dirname, '../cli/search-stats.ts');
    const tsx = path.resolve(import.meta.dirname, '../../../../node_modules/.bin/tsx');
    expect(execFileSync(tsx, [cli, '--help'], { encoding: 'utf8' })).toMatch(
      /^Usage: npm run -w @telepath\/tasks search-stats/,
    );
    expect(JSON.parse(execFileSync(tsx, [cli, file, '--json'], { encoding: 'utf8' }))[file]).toMatchObject({
      total: 1,
      correct: 1,
      sound: 1,
    });
    // Beside the run's config, each sample also gets its question's full search.
    const config = { data: { reasoning: 'search-check', numberFormat: 'reversed', searchOrder: 'listed' } };
    await fs.writeFile(path.join(dir, 'config.resolved.json'), JSON.stringify(config));
    await fs.writeFile(file, `${JSON.stringify({ ...row, question: 'Make 44 from 92 11 26.' })}\n`);
    // The text comes back in plain digits, read in the run's number format.
    expect(readSearchSamples(file)).toEqual([
      {
        text: '26-81=44 [44]\n### 26-81',
        correct: true,
        reason: 'ok',
        goldDeadEnds: 2,
        start: { nums: [29, 11, 62], target: 44 },
      },
    ]);
    await fs.appendFile(file, '{"text": 3}\n');
    expect(() => readSearchSamples(file)).toThrow(/samples\.jsonl:2: expected a sample with "text"/);
    await fs.writeFile(path.join(dir, 'config.resolved.json'), '{"data": ');
    expect(() => readSearchSamples(file)).toThrow(/config\.resolved\.json: not JSON/);
  });

  it('finds the first line with wrong arithmetic, its operation and whether it is the last line', () => {
    expect(firstWrongLine(['29+11=40 [40 62]', '62-40=22 [22]', 'back [29 11 62]', '29-11=18 [18 62]'])).toBeNull();
    expect(firstWrongLine(['29*11=329 [329 62]', '329-62=267 [267]', 'back [29 11 62]', '62-18=44 [44]'])).toEqual({
      op: '*',
      last: false,
    });
    expect(firstWrongLine(['29-11=18 [18 62]', '62-18=45 [45]'])).toEqual({ op: '-', last: true });
    expect(firstWrongLine(['84/4=21', '21/4=5'])).toEqual({ op: '/', last: true }); // 5 × 4 is not 21
    expect(firstWrongLine(['garbled', '3+4=8'])).toEqual({ op: '+', last: true });
    const s = searchStats([
      {
        text: '29*11=329 [329 62]\n329-62=267 [267]\nback [29 11 62]\n29-11=18 [18 62]\n62-18=44 [44]\n### 62-(29-11)',
        correct: true,
      },
      { text: '29*11=318 [318 62]\n### 29*11-62', correct: false },
      { text: '29-11=18 [18 62]\n62-18=45 [45]\n### 62-(29-11)', correct: false },
      { text: '29-11=18 [18 62]\n62-18=44 [44]\n### 62-(29-11)', correct: true },
    ]);
    expect(s.firstWrong).toEqual({
      '*': { beforeLast: 1, beforeLastRight: 1, last: 1 },
      '-': { beforeLast: 0, beforeLastRight: 0, last: 1 },
    });
    expect(s.lines).toEqual({ '*': { count: 2, right: 0 }, '-': { count: 7, right: 6 } });
    expect(s.byPlace.slice(0, 5)).toEqual([
      { count: 4, right: 2 }, // 29*11=329 ✗, 29*11=318 ✗, 29-11=18 ✓ twice
      { count: 3, right: 2 }, // the second arithmetic line; "back" lines are not counted
      { count: 1, right: 1 },
      { count: 1, right: 1 },
      { count: 0, right: 0 },
    ]);
  });

  it('pools arithmetic lines from the BY_PLACE-th on into the last place', () => {
    const ten = Array.from({ length: 10 }, (_, i) => `${i + 1}+1=${i === 9 ? 0 : i + 2}`).join('\n');
    const s = searchStats([{ text: `${ten}\n### 1+1`, correct: false }]);
    expect(s.byPlace).toHaveLength(BY_PLACE);
    expect(s.byPlace[0]).toEqual({ count: 1, right: 1 });
    expect(s.byPlace[BY_PLACE - 1]).toEqual({ count: 10 - (BY_PLACE - 1), right: 10 - BY_PLACE }); // the tenth is wrong
    expect(formatSearchStats('f', s)).toContain(
      `${BY_PLACE}+ ${((100 * (10 - BY_PLACE)) / (11 - BY_PLACE)).toFixed(1)} % of ${11 - BY_PLACE}`,
    );
  });

  it("reads a judged move's line (' x': not entered) as arithmetic too", () => {
    expect(lineArithmetic('54+18=72 [72 3 58] x')).toEqual({ op: '+', right: true });
    expect(lineArithmetic('54+18=92 [92 3 58] x')).toEqual({ op: '+', right: false });
    expect(lineArithmetic('back [54 18 3 58]')).toBeNull();
    expect(firstWrongLine(['54+18=92 [92 3 58] x', '54-18=36 [36 3 58]'])).toEqual({ op: '+', last: false });
    const s = searchStats([{ text: '54+18=92 [92 3 58] x\n54-18=36 [36 3 58]\n### 54-18', correct: false }]);
    expect(s.lines).toEqual({ '+': { count: 1, right: 0 }, '-': { count: 1, right: 1 } });
  });

  it('counts rejected divisions ("a/b x") and whether each is inexact, apart from the arithmetic lines', () => {
    const s = searchStats([{ text: '34/19 x\n34/17 x\n19-17=2 [2 34]\n34/2=17 [17]\n### 34/(19-17)', correct: true }]);
    expect(s.rejections).toEqual({ count: 2, right: 1 }); // 34/17 is exact: a wrong rejection
    expect(s.lines).toEqual({ '-': { count: 1, right: 1 }, '/': { count: 1, right: 1 } });
    expect(formatSearchStats('f', s)).toContain('rejected divisions: 1 / 2 inexact (50.0 %)');
    expect(formatSearchStats('f', searchStats([{ text: '1+1=2\n### 1+1', correct: true }]))).not.toContain('rejected');
    // Read as the checker reads them: spaces around the sign, a division by zero rejected wrongly, a judged product apart.
    const spaced = searchStats([{ text: '34 / 19 x\n7/0 x\n94*12 x\n### 1', correct: false }]);
    expect([spaced.rejections, spaced.judgedProducts]).toEqual([{ count: 2, right: 1 }, 1]);
    // The full search of a rejecting run writes the "back" before a rejection too.
    const q = 'Make 17 from 19 34 17.';
    const r = renderCountdown(generateCountdown({ n: 3, count: 1, seed: 4, split: 'val' })[0], {
      reasoning: 'search-check',
      numberFormat: 'plain',
      maxBacks: 1000,
      searchOrder: 'products-last',
      rejectInexact: true,
    });
    expect(goldDeadEnds(r.question, 'plain', { order: 'products-last', rejectInexact: true })).toBe(
      r.steps.filter((l) => l.startsWith('back')).length,
    );
    expect(goldDeadEnds(q, 'plain', { order: 'products-last', rejectInexact: true })).toBe(3);
    // A three-number state whose last listed move is a rejection: one more "back", before it.
    expect(goldDeadEnds('Make 87 from 54 50 9 43.', 'plain', { order: 'products-last', rejectInexact: true })).toBe(48);
    expect(goldDeadEnds('Make 87 from 54 50 9 43.', 'plain', { order: 'products-last' })).toBe(47);
  });
});
