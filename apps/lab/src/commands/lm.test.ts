import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterEach, expect, it, vi } from 'vitest';
import { main } from '../cli.js';

/** core's tiny random GPT-2 fixture and its PyTorch reference (packages/core/scripts/make-tiny-gpt2.py). */
const TINY = fileURLToPath(new URL('../../../../packages/core/src/__fixtures__/tiny-gpt2', import.meta.url));
const reference = JSON.parse(readFileSync(`${TINY}/reference.json`, 'utf8')) as {
  prompt: number[];
  logits: number[][];
  generated: number[];
};

afterEach(() => vi.restoreAllMocks());

async function run(args: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  vi.spyOn(console, 'log').mockImplementation((s: string) => void out.push(s));
  vi.spyOn(console, 'error').mockImplementation((s: string) => void err.push(s));
  const code = await main(['lm', ...args, '--backend', 'cpu']);
  vi.restoreAllMocks();
  return { code, out: out.join('\n'), err: err.join('\n') };
}

it('--json prints params, the prompt ids, every last-position logit and the greedy continuation, matching PyTorch', async () => {
  for (const prompt of [
    ['--ids', reference.prompt.join(',')],
    ['--prompt', 'Janet has 3 apples and'],
  ]) {
    const { code, out } = await run([
      TINY,
      ...prompt,
      '--max-new-tokens',
      String(reference.generated.length),
      '--json',
    ]);
    expect(code).toBe(0);
    expect(out.split('\n')).toHaveLength(1);
    const json = JSON.parse(out) as { params: number; ids: number[]; lastLogits: number[]; generated: number[] };
    expect(Object.keys(json)).toEqual(['params', 'ids', 'lastLogits', 'generated']);
    expect(json.params).toBe(38816);
    expect(json.ids).toEqual(reference.prompt);
    const last = reference.logits[reference.logits.length - 1];
    expect(json.lastLogits).toHaveLength(353);
    expect(Math.max(...last.map((v, i) => Math.abs(v - json.lastLogits[i])))).toBeLessThan(1e-4);
    expect(json.generated).toEqual(reference.generated);
  }
});

it('prints a summary without --json, and refuses bad arguments and folders with clear messages', async () => {
  const summary = await run([TINY, '--prompt', 'Janet has 3 apples and', '--max-new-tokens', '2']);
  expect(summary.code).toBe(0);
  expect(summary.out).toMatch(/2 layers, 4 heads, width 32, 64 positions, vocabulary 353/);
  expect(summary.out).toMatch(/38,816 parameters, stored as F32/);
  expect((await run([TINY, '--ids', '1,2', '--prompt', 'x'])).err).toMatch(/give --prompt or --ids, not both/);
  expect((await run([TINY, '--ids', '1,999'])).err).toMatch(/token id 999 is outside the vocabulary .*vocab_size 353/);
  await expect(run([TINY, '--max-new-tokens=-1'])).rejects.toThrow(
    /lm --max-new-tokens: expected an integer ≥ 0, got "-1"/,
  );
  await expect(run([`${TINY}-missing`])).rejects.toThrow(/tiny-gpt2-missing: no config\.json/);
});
