import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { initBackend } from '@telepath/core';
import { beforeAll, describe, expect, it } from 'vitest';
import { validateExperiment } from '../experiment/experiment.js';
import { runExperiment } from './run-experiment.js';
import { acquireRunLock, lockFileOf } from './run-lock.js';
import { metricLines, MICRO_SETTINGS } from '../testing.js';

beforeAll(async () => {
  await initBackend('cpu', { quiet: true });
});

describe('run directory locks', () => {
  it('a second taker waits until the first releases, then holds the lock itself', async () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'lock-')), 'exp', 'arm', 's0');
    const first = await acquireRunLock(dir);
    expect(JSON.parse(readFileSync(lockFileOf(dir), 'utf8')).pid).toBe(process.pid);
    const events: string[] = [];
    const second = acquireRunLock(dir, { pollMs: 5, onWait: (h) => events.push(`wait ${h.pid}`) }).then((l) => {
      events.push('second');
      return l;
    });
    while (events.length === 0) await new Promise((r) => setTimeout(r, 5)); // until the second is waiting
    await new Promise((r) => setTimeout(r, 30)); // and has polled a few times
    events.push('release');
    await first!.release();
    const l2 = await second;
    expect(events).toEqual([`wait ${process.pid}`, 'release', 'second']);
    await l2!.release();
    expect(existsSync(lockFileOf(dir))).toBe(false);
  });

  it('takes over a lock whose process has exited, and stops waiting on request', async () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'lock-')), 's0');
    const gone = spawnSync(process.execPath, ['-e', '0']).pid!;
    mkdirSync(join(dir, '..'), { recursive: true });
    writeFileSync(lockFileOf(dir), JSON.stringify({ pid: gone, host: hostname(), since: 'then' }));
    const taken = await acquireRunLock(dir, { pollMs: 5 });
    expect(JSON.parse(readFileSync(lockFileOf(dir), 'utf8')).pid).toBe(process.pid);
    expect(await acquireRunLock(dir, { pollMs: 5, shouldStop: () => true })).toBeNull();
    await taken!.release();
  });
});

it("two runs of one experiment at once train each arm once; the second reads the first one's record", async () => {
  const runs = mkdtempSync(join(tmpdir(), 'lab-lock-'));
  const micro = {
    name: 'micro',
    ...MICRO_SETTINGS,
    arms: [{ name: 'no-cot', method: 'cot', config: { variant: 'no-cot', steps: 6 } }],
  };
  const run = () =>
    runExperiment(validateExperiment(micro, 'micro.json'), { runsDir: runs, quiet: true, log: () => {} });
  const [a, b] = await Promise.all([run(), run()]);
  expect(b.results).toEqual(a.results);
  const steps = metricLines(runs, 'micro', 'no-cot', 's0').flatMap((m) => ('sft/val_acc' in m ? [] : [m.step]));
  expect(steps).toEqual([1, 2, 3, 4, 5, 6, 1]); // six training steps (logged once each) and the test line
  expect(existsSync(lockFileOf(join(runs, 'micro', 'no-cot', 's0')))).toBe(false);
});

it('a run goes on with other arms while another process trains one, and comes back to it at the end', async () => {
  const runs = mkdtempSync(join(tmpdir(), 'lab-defer-'));
  const micro = {
    name: 'micro',
    ...MICRO_SETTINGS,
    arms: [
      { name: 'a', method: 'cot', config: { variant: 'no-cot', steps: 3 } },
      { name: 'from-a', method: 'cot', initFrom: 'a', config: { variant: 'no-cot', steps: 2 } },
      { name: 'b', method: 'cot', config: { variant: 'no-cot', steps: 3 } },
    ],
  };
  // Another live process holds a's lock; it "finishes" (exits) once b is done here.
  const other = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)']);
  const aDir = join(runs, 'micro', 'a', 's0');
  mkdirSync(join(aDir, '..'), { recursive: true });
  writeFileSync(lockFileOf(aDir), JSON.stringify({ pid: other.pid, host: hostname(), since: 'now' }));
  const lines: string[] = [];
  const res = await runExperiment(validateExperiment(micro, 'micro.json'), {
    runsDir: runs,
    quiet: true,
    log: (l) => {
      lines.push(l.replace(/: accuracy.*/, ': done'));
      if (l.startsWith('[telepath] b s0: accuracy')) other.kill();
    },
  });
  const events = lines
    .filter((l) => / s0: /.test(l))
    .map((l) => l.replace('[telepath] ', '').replace(/: another process.*/, ': deferred'));
  expect(events).toEqual(['a s0: deferred', 'from-a s0: deferred', 'b s0: done', 'a s0: done', 'from-a s0: done']);
  expect(res.results.map((r) => r.arm)).toEqual(['a', 'from-a', 'b']); // the table keeps the config's order
  expect(existsSync(lockFileOf(aDir))).toBe(false);
});

it("two runs started together split the arms: the one that loses the race for an arm's lock trains the next arm instead of waiting", async () => {
  const runs = mkdtempSync(join(tmpdir(), 'lab-race-'));
  const micro = {
    name: 'micro',
    ...MICRO_SETTINGS,
    arms: [
      { name: 'a', method: 'cot', config: { variant: 'no-cot', steps: 4 } },
      { name: 'b', method: 'cot', config: { variant: 'no-cot', steps: 4 } },
    ],
  };
  const logs: string[][] = [[], []];
  const run = (k: number) =>
    runExperiment(validateExperiment(micro, 'micro.json'), { runsDir: runs, quiet: true, log: (l) => logs[k].push(l) });
  const [x, y] = await Promise.all([run(0), run(1)]);
  expect(y.results).toEqual(x.results);
  const events = logs.map((ls) =>
    ls
      .filter((l) => / s0: /.test(l))
      .map((l) =>
        l
          .replace('[telepath] ', '')
          .replace(/: another process.*/, ': deferred')
          .replace(/: accuracy.*/, ': done'),
      ),
  );
  // One run trains a; the other, finding a taken, trains b meanwhile and reads a's record at the end.
  expect(events).toContainEqual(['a s0: deferred', 'b s0: done', 'a s0: done']);
  for (const arm of ['a', 'b']) {
    const steps = metricLines(runs, 'micro', arm, 's0').flatMap((m) => ('sft/loss' in m ? [m.step] : []));
    expect(steps).toEqual([1, 2, 3, 4]); // each arm trained once
  }
});
