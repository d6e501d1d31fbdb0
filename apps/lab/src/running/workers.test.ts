import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';
import { MICRO_SETTINGS } from '../testing.js';
import { withoutWorkers } from './workers.js';

const cli = fileURLToPath(new URL('../cli.ts', import.meta.url));
const tsx = createRequire(import.meta.url).resolve('tsx/cli');

it('withoutWorkers drops --workers N and --workers=N, nothing else', () => {
  expect(withoutWorkers(['x.json', '--workers', '2', '--set', 'a=1', '--workers=3', '--quiet'])).toEqual([
    'x.json',
    '--set',
    'a=1',
    '--quiet',
  ]);
});

it('telepath run --workers 2 starts a second process on the same experiment and finishes every arm once', async () => {
  const folder = mkdtempSync(join(tmpdir(), 'workers-'));
  const file = join(folder, 'micro.json');
  const arms = ['a', 'b', 'c', 'd'].map((name) => ({ name, method: 'cot', config: { variant: 'no-cot', steps: 30 } }));
  writeFileSync(
    file,
    JSON.stringify({
      name: 'micro',
      ...MICRO_SETTINGS,
      train: { ...MICRO_SETTINGS.train, logEvery: 10, checkpointEvery: 10 },
      arms,
    }),
  );
  const runs = join(folder, 'runs');
  const { stdout, stderr } = await promisify(execFile)(process.execPath, [
    tsx,
    cli,
    'run',
    file,
    '--runs',
    runs,
    '--backend',
    'cpu',
    '--quiet',
    '--workers',
    '2',
  ]);
  expect(stderr).toMatch(/^\[worker 2\] \[telepath\] micro: task countdown, 4 arm\(s\)/m); // the child ran the same command
  for (const arm of ['a', 'b', 'c', 'd']) expect(existsSync(join(runs, 'micro', arm, 's0', 'summary.json'))).toBe(true);
  // The pace counts the arms every process finished: the last one says all four are done.
  expect(stderr).toMatch(/\[telepath\] 4 of 4 arms to train done in \S+$/m);
  expect(stdout.match(/^micro \(countdown\)$/gm)).toHaveLength(1); // one table, from the parent
  expect(
    readFileSync(join(runs, 'micro', 'table.md'), 'utf8')
      .split('\n')
      .filter((l) => /^\|[a-d]\|/.test(l)),
  ).toHaveLength(4);
}, 120_000);

it('telepath run --workers rejects a count that is not a positive integer', async () => {
  const r = await promisify(execFile)(process.execPath, [
    tsx,
    cli,
    'run',
    join(fileURLToPath(new URL('../../../../experiments', import.meta.url)), 'quickstart.json'),
    '--workers',
    '0',
  ]).catch((e: { code: number; stderr: string }) => e);
  expect((r as { code: number }).code).toBe(2);
  expect((r as { stderr: string }).stderr).toMatch(
    /telepath run --workers: expected an integer ≥ 1 \(processes that split the arms\), got "0"/,
  );
});
