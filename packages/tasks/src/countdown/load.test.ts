import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { generateCountdown, type CountdownMeta } from './generate.js';
import { loadCountdownJsonl, toCountdownJsonl } from './load.js';

async function tmpFile(text: string): Promise<string> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'telepath-countdown-'));
  const p = path.join(dir, 'cd.jsonl');
  await fs.writeFile(p, text);
  return p;
}

describe('Countdown JSONL loader', () => {
  it('round-trips generated instances and solves them on request', async () => {
    const gen = generateCountdown({ n: 4, count: 25, seed: 9, split: 'val_target' });
    const p = await tmpFile(toCountdownJsonl(gen));
    const r = await loadCountdownJsonl(p, { solve: true });
    expect(r.examples.length).toBe(25);
    expect(r.file.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(r.examples.map((e) => (e.meta as CountdownMeta).nums)).toEqual(
      gen.map((e) => (e.meta as CountdownMeta).nums),
    );
    expect(r.examples.every((e) => e.steps.length === 3 && e.answer !== '')).toBe(true);
  });

  it('reads spaces and numeric outputs', async () => {
    const p = await tmpFile('{"input": "3, 5, 7", "output": "22"}\n{"input":"10,2","output":5,"extra":1}\n');
    const r = await loadCountdownJsonl(p);
    expect(r.examples.map((e) => e.meta)).toEqual([
      { nums: [3, 5, 7], target: 22, rules: 'sos' },
      { nums: [10, 2], target: 5, rules: 'sos' },
    ]);
    expect(r.examples[0]).toMatchObject({
      id: 'countdown/file/0',
      question: 'Make 22 from 3 5 7.',
      steps: [],
      answer: '',
    });
  });

  it('names file, line and field of a bad record; skipBad reports every skip', async () => {
    const lines = [
      '{"input": "3,5,7", "output": "22"}',
      '{"input": "3,x,7", "output": "22"}',
      '',
      '{"input": "3,5", "output": "a"}',
      '{"input": [1,2], "output": "3"}',
      '{"input": "1,1,1", "output": "100"}',
      'not json',
    ];
    const p = await tmpFile(lines.join('\n') + '\n');
    await expect(loadCountdownJsonl(p)).rejects.toThrow(new RegExp(`${p}:2 field "input": expected comma-separated`));
    const r = await loadCountdownJsonl(p, { skipBad: true, solve: true });
    expect(r.examples.length).toBe(1);
    expect(r.skipped.map((s) => [s.line, s.field])).toEqual([
      [2, 'input'],
      [3, null],
      [4, 'output'],
      [5, 'input'],
      [6, 'output'],
      [7, null],
    ]);
    expect(r.skipped[4].reason).toMatch(/no sos solution reaches 100/);
  });

  it('says where Countdown data comes from when the file is missing', async () => {
    await expect(loadCountdownJsonl('/nonexistent/cd.jsonl')).rejects.toThrow(
      /\/nonexistent\/cd\.jsonl.*section "Countdown"/,
    );
  });
});
