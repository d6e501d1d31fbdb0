import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  compareGolden,
  expectGolden,
  GOLDEN_VERSION,
  goldenBatch,
  goldenCommand,
  readGolden,
  writeGolden,
} from './golden.js';
import { toyAdditionExamples } from './testing.js';

// Every call passes `update: false` explicitly, so TELEPATH_UPDATE_GOLDEN=1 cannot turn these
// checks into writes.
const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'telepath-golden-'));
afterAll(() => fs.rm(dir, { recursive: true, force: true }));
const file = (name: string) => path.join(dir, name);
const LOSSES = [2.5, 2.25, 2.0, 1.75, 1.5];

describe('golden fixtures', () => {
  it('writes atomically with a versioned header and compares within the tolerance', async () => {
    const f = file('ok-golden.json');
    expect(await expectGolden(f, LOSSES, { update: true })).toBe('written');
    const fixture = await readGolden(f);
    expect(fixture.version).toBe(GOLDEN_VERSION);
    expect(fixture.createdWith).toMatch(/TELEPATH_UPDATE_GOLDEN=1 npx vitest run golden @ \d{4}-\d\d-\d\dT/);
    expect(fixture.losses).toEqual(LOSSES);
    expect((await fs.readdir(dir)).filter((n) => n.includes('.tmp-'))).toEqual([]);
    expect(
      await expectGolden(
        f,
        LOSSES.map((x) => x + 9e-5),
        { update: false },
      ),
    ).toBe('compared');
  });

  it('a wrong fixture fails, naming the step, both values, the writer and the regenerate command', async () => {
    const f = file('wrong-golden.json');
    await writeGolden(f, LOSSES, 'test @ 2000-01-01');
    const moved = [...LOSSES];
    moved[3] += 2e-4;
    const err = await expectGolden(f, moved, { update: false }).catch((e: Error) => e);
    expect(err).toBeInstanceOf(Error);
    const msg = (err as Error).message;
    expect(msg).toContain(`golden mismatch for ${f}: losses differ by more than 0.0001`);
    expect(msg).toMatch(/step 3: got 1\.750\d+, fixture 1\.75, \|diff\| 2\.00e-4 {2}✗/);
    expect(msg).not.toMatch(/step 2:.*✗/);
    expect(msg).toContain('fixture written by: test @ 2000-01-01');
    expect(msg).toContain('TELEPATH_UPDATE_GOLDEN=1 npx vitest run golden');
    await expect(expectGolden(f, LOSSES.slice(0, 4), { update: false })).rejects.toThrow('4 losses, the fixture has 5');
    await expect(expectGolden(f, [...LOSSES.slice(0, 4), NaN], { update: false })).rejects.toThrow(/step 4: got NaN/);
    expect(() =>
      compareGolden(
        f,
        { version: 1, createdWith: 'x', losses: LOSSES },
        LOSSES.map((x) => x + 5e-3),
        1e-2,
      ),
    ).not.toThrow();
  });

  it('a missing fixture is an error, not a pass', async () => {
    await expect(expectGolden(file('missing-golden.json'), LOSSES, { update: false })).rejects.toThrow(
      /golden fixture .*missing-golden\.json does not exist; regenerate with: cd .* && TELEPATH_UPDATE_GOLDEN=1 npx vitest run golden/,
    );
  });

  it('rejects a fixture with a wrong version, no createdWith, bad losses or bad JSON', async () => {
    const cases: [string, string, RegExp][] = [
      ['v0', JSON.stringify({ version: 0, createdWith: 'x', losses: [1] }), /has version 0, expected 1/],
      ['nover', JSON.stringify({ createdWith: 'x', losses: [1] }), /has version undefined, expected 1/],
      ['nocreated', JSON.stringify({ version: 1, losses: [1] }), /has no createdWith/],
      ['noloss', JSON.stringify({ version: 1, createdWith: 'x', losses: [] }), /losses must be a non-empty array/],
      [
        'strloss',
        JSON.stringify({ version: 1, createdWith: 'x', losses: ['1'] }),
        /losses must be a non-empty array of finite numbers/,
      ],
      ['array', '[1, 2]', /must be a JSON object/],
      ['json', '{"version": 1,', /is not valid JSON/],
    ];
    for (const [name, text, re] of cases) {
      await fs.writeFile(file(`${name}.json`), text);
      await expect(readGolden(file(`${name}.json`)), name).rejects.toThrow(re);
    }
    await expect(writeGolden(file('nan.json'), [1, NaN])).rejects.toThrow(/non-finite/);
  });

  it('names the package to regenerate from and gives fixed batches', () => {
    expect(goldenCommand('/x/packages/cot/src/__fixtures__/cot-golden.json')).toBe(
      'cd packages/cot && TELEPATH_UPDATE_GOLDEN=1 npx vitest run golden',
    );
    const data = toyAdditionExamples(10);
    expect(goldenBatch(data, 1, 4).map((e) => e.id)).toEqual(['t4', 't5', 't6', 't7']);
    expect(goldenBatch(data, 2, 4).map((e) => e.id)).toEqual(['t8', 't9', 't0', 't1']);
  });
});
