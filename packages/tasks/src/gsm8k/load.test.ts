import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultDatasetsDir } from '../files.js';
import { excludeQuestions, loadGsm8k, loadGsm8kAug, loadGsm8kJsonlFile, loadGsm8kOriginal } from './load.js';
import { formatIcotLine } from './parse.js';

describe('GSM8K loaders on the real files', () => {
  it('load the published counts with verified sha256', async () => {
    const [train, test, valid, augTest] = await Promise.all([
      loadGsm8kOriginal('train'),
      loadGsm8kOriginal('test'),
      loadGsm8kAug('valid'),
      loadGsm8kAug('test'),
    ]);
    expect([train, test, valid, augTest].map((r) => r.examples.length)).toEqual([7473, 1319, 500, 1319]);
    for (const r of [train, test, valid, augTest]) expect(r.files.every((f) => !f.changed)).toBe(true);
    expect(train.examples[0]).toEqual({
      id: 'gsm8k/train/0',
      question: expect.stringMatching(/^Natalia sold clips/),
      steps: ['48/2=24', '48+24=72'],
      answer: '72',
    });
    // docs/datasets.md §2 measured: 7,378 / 1,301 with ≥ 1 annotation; 79 / 14 answers with a comma.
    expect(train.examples.filter((e) => e.steps.length > 0).length).toBe(7378);
    expect(test.examples.filter((e) => e.steps.length > 0).length).toBe(1301);
    expect(train.examples.filter((e) => e.answer.includes(',')).length).toBe(79);
    // docs/datasets.md §3: empty chains 6 (valid) / 18 (test); step histogram of valid.
    expect(valid.examples.filter((e) => e.steps.length === 0).length).toBe(6);
    expect(augTest.examples.filter((e) => e.steps.length === 0).length).toBe(18);
    const hist = Array.from({ length: 9 }, (_, k) => valid.examples.filter((e) => e.steps.length === k).length);
    expect(hist).toEqual([6, 26, 155, 140, 91, 53, 18, 8, 3]);
  });

  it('rebuild every iCoT valid and test line byte-exactly from the original records', async () => {
    const [train, test] = await Promise.all([loadGsm8kOriginal('train'), loadGsm8kOriginal('test')]);
    const dir = defaultDatasetsDir();
    const validLines = (await fs.readFile(path.join(dir, 'gsm8k_aug/valid.txt'), 'utf8')).split('\n').slice(0, -1);
    const testLines = (await fs.readFile(path.join(dir, 'gsm8k_aug/test.txt'), 'utf8')).split('\n').slice(0, -1);
    expect(test.examples.map(formatIcotLine)).toEqual(testLines);
    const byQuestion = new Map(train.examples.map((e) => [e.question, e]));
    const rebuilt = validLines.map((l) => byQuestion.get(l.slice(0, l.indexOf('||'))));
    expect(rebuilt.every((e) => e !== undefined)).toBe(true);
    expect(rebuilt.map((e) => formatIcotLine(e!))).toEqual(validLines);
  });

  it('train split excludes exactly the 500 GSM8k-Aug valid questions', async () => {
    const [train, valid] = await Promise.all([loadGsm8k('train'), loadGsm8k('valid')]);
    expect(train.examples.length).toBe(6973);
    const validQ = new Set(valid.examples.map((e) => e.question));
    expect(train.examples.some((e) => validQ.has(e.question))).toBe(false);
    expect(train.examples.filter((e) => e.steps.length === 0).length).toBe(89);
    expect(new Set(train.examples.map((e) => e.id)).size).toBe(6973);
    expect(train.files.map((f) => f.key)).toEqual(['gsm8k/train', 'gsm8k-aug/valid']);
    expect((await loadGsm8k('test')).examples.length).toBe(1319);
  });

  it('refuses an exclusion list with a question absent from train', () => {
    const ex = (q: string) => ({ id: q, question: q, steps: [], answer: '1' });
    expect(() => excludeQuestions([ex('a'), ex('b')], [ex('a'), ex('c')], 'valid')).toThrow(/1 question\(s\) of valid/);
  });
});

describe('bad and changed files', () => {
  async function fixtureDir(mutate: (dir: string) => Promise<void>): Promise<string> {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'telepath-tasks-'));
    await fs.mkdir(path.join(dir, 'gsm8k_aug'));
    await fs.copyFile(path.join(defaultDatasetsDir(), 'gsm8k_aug/valid.txt'), path.join(dir, 'gsm8k_aug/valid.txt'));
    await mutate(dir);
    return dir;
  }

  it('names the path and the README section of a missing file', async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'telepath-tasks-'));
    await expect(loadGsm8kOriginal('test', { datasetsDir: dir })).rejects.toThrow(
      new RegExp(`Missing dataset file ${dir}/gsm8k/test\\.jsonl.*datasets/README\\.md, section "GSM8K"`),
    );
  });

  it('reports a changed file, and with skipBad reports each skipped record', async () => {
    const dir = await fixtureDir(async (d) => {
      const p = path.join(d, 'gsm8k_aug/valid.txt');
      const lines = (await fs.readFile(p, 'utf8')).split('\n');
      lines[2] = lines[2].replace('||', '|');
      await fs.writeFile(p, lines.join('\n'));
    });
    await expect(loadGsm8kAug('valid', { datasetsDir: dir })).rejects.toThrow(
      /was changed: its sha256 is [0-9a-f]{64}.* record 04f9bddf/,
    );
    const warnings: string[] = [];
    const opts = { datasetsDir: dir, onChanged: 'warn' as const, onWarning: (m: string) => warnings.push(m) };
    await expect(loadGsm8kAug('valid', opts)).rejects.toThrow(/valid\.txt:3 field "question": no "\|\|"/);
    const r = await loadGsm8kAug('valid', { ...opts, skipBad: true });
    expect(r.examples.length).toBe(499);
    expect(r.skipped).toEqual([expect.objectContaining({ line: 3, field: 'question' })]);
    expect(r.files[0].changed).toBe(true);
    expect(warnings.length).toBe(2);
  });
});

describe('loadGsm8kJsonlFile', () => {
  it('loads any GSM8K-format JSONL and names the file and line of a bad record', async () => {
    const { mkdtempSync, writeFileSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const dir = mkdtempSync(join(tmpdir(), 'gsm-'));
    const good = JSON.stringify({
      question: 'Tom has 2 apples and buys 3. How many?',
      answer: 'He has <<2+3=5>>5.\n#### 5',
    });
    writeFileSync(join(dir, 'a.jsonl'), `${good}\n${good}\n`);
    const r = await loadGsm8kJsonlFile(join(dir, 'a.jsonl'));
    expect(r.examples).toHaveLength(2);
    expect(r.examples[0]).toMatchObject({ id: 'file:a.jsonl/0', steps: ['2+3=5'], answer: '5' });
    writeFileSync(join(dir, 'b.jsonl'), `${good}\n{"question": 1}\n`);
    await expect(loadGsm8kJsonlFile(join(dir, 'b.jsonl'))).rejects.toThrow(/b\.jsonl:2/);
    await expect(loadGsm8kJsonlFile(join(dir, 'missing.jsonl'))).rejects.toThrow(/cannot read .*missing\.jsonl/);
  });
});
