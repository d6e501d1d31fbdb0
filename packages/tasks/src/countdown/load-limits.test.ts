import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { isUserError } from '@telepath/core';
import { describe, expect, it } from 'vitest';
import { loadCountdownJsonl } from './load.js';

async function tmpFile(lines: string[]): Promise<string> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'telepath-countdown-limits-'));
  const p = path.join(dir, 'cd.jsonl');
  await fs.writeFile(p, lines.join('\n') + '\n');
  return p;
}

describe('Countdown data with absurd numbers (issue 26)', () => {
  it('a 10 MB digit string as the target is refused with file:line and a short prefix, not parsed as Infinity and scored', async () => {
    const huge = '9'.repeat(10_000_000);
    const p = await tmpFile(['{"input": "3,5,7", "output": "22"}', JSON.stringify({ input: '1,2,3', output: huge })]);
    const err = (await loadCountdownJsonl(p).catch((e: unknown) => e)) as Error;
    expect(err).toBeInstanceOf(Error);
    expect(isUserError(err)).toBe(true);
    expect(err.message).toBe(
      `${p}:2 field "output": the target must be an integer of magnitude at most 1000000000, got "${'9'.repeat(23)}… (10000002 characters)`,
    );
  });

  it('a huge input number and a huge numeric target are refused too; the largest allowed values read', async () => {
    const p = await tmpFile([JSON.stringify({ input: `1,${'8'.repeat(400)}`, output: '3' })]);
    await expect(loadCountdownJsonl(p)).rejects.toThrow(
      /cd\.jsonl:1 field "input": a number must be at most 1000000000, got "8{23}… \(402 characters\)/,
    );
    const q = await tmpFile(['{"input": "1,2", "output": 1e300}']);
    await expect(loadCountdownJsonl(q)).rejects.toThrow(
      /cd\.jsonl:1 field "output": expected an integer target, got 1e\+300/,
    );
    const r = await tmpFile(['{"input": "1,2", "output": 12345678901}']);
    await expect(loadCountdownJsonl(r)).rejects.toThrow(
      /cd\.jsonl:1 field "output": the target must be an integer of magnitude at most 1000000000, got 12345678901/,
    );
    const ok = await tmpFile(['{"input": "1000000000,2", "output": "-1000000000"}']);
    expect((await loadCountdownJsonl(ok)).examples[0].meta).toMatchObject({ nums: [1e9, 2], target: -1e9 });
  });
});
