import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { main } from '../cli.js';
import { loadExperiment } from '../experiment/load-experiment.js';
import { PARTS_DIR } from '../evaluation/finished-parts.js';
import { lockFileOf } from '../running/run-lock.js';
import { experimentStatus, formatStatus, lastStep, trainedFirst } from './status.js';
import { MICRO_SETTINGS } from '../testing.js';

const cot = (variant: string, steps: number) => ({ method: 'cot', config: { variant, steps } });

it('reads done, training, stopped and not-started arms from the records and locks, reused arms from their source', async () => {
  const folder = mkdtempSync(join(tmpdir(), 'status-'));
  const runs = join(folder, 'runs');
  const write = (name: string, arms: object[]) => writeExperiment(folder, name, arms);
  const micro = write('micro', [
    { name: 'a', ...cot('no-cot', 2) },
    { name: 'b', ...cot('cot', 4) },
    { name: 'c', ...cot('cot', 4) },
    { name: 'd', ...cot('cot', 4) },
    { name: 'e', ...cot('cot', 4) },
  ]);
  const other = write('other', [
    { name: 'x', reuse: 'micro/a' },
    { name: 'y', reuse: 'micro/d' },
  ]);
  const log = console.log;
  console.log = () => {};
  try {
    expect(
      await main([
        'run',
        micro,
        '--runs',
        runs,
        '--backend',
        'cpu',
        '--quiet',
        '--set',
        'arms=[{"name":"a","method":"cot","config":{"variant":"no-cot","steps":2}}]',
      ]),
    ).toBe(0);
  } finally {
    console.log = log;
  }
  // b stopped after logging step 2 of 4; c held by a live process (this one) at step 3.
  const dirOf = (arm: string) => join(runs, 'micro', arm, 's0');
  for (const [arm, step] of [
    ['b', 2],
    ['c', 3],
    ['e', 4],
  ] as const) {
    mkdirSync(dirOf(arm), { recursive: true });
    writeFileSync(
      join(dirOf(arm), 'metrics.jsonl'),
      `{"step":1,"sft/loss":2.5}\n{"step":${step},"sft/loss":2.1}\n{"step":${step},"sft/lr":0.001}\n`,
    );
  }
  // e finished training and was stopped during its evaluation, two parts of which it keeps.
  mkdirSync(join(dirOf('e'), PARTS_DIR));
  for (const part of ['pass2', 'main']) writeFileSync(join(dirOf('e'), PARTS_DIR, `${part}.json`), '{}');
  writeFileSync(
    lockFileOf(dirOf('c')),
    JSON.stringify({ pid: process.pid, host: hostname(), since: '2026-11-30T00:00:00.000Z' }),
  );

  const states = await experimentStatus(await loadExperiment(micro), runs);
  expect(states.map((s) => [s.arm, s.state])).toEqual([
    ['a', 'done'],
    ['b', 'stopped'],
    ['c', 'training'],
    ['d', 'not started'],
    ['e', 'stopped'],
  ]);
  expect(states[0].detail).toMatch(/^\d+\.\d % ± \d+\.\d$/);
  expect(states[1].detail).toBe('sft step 2 / 4');
  expect(states[2].detail).toBe(`pid ${process.pid} since 2026-11-30T00:00:00.000Z, sft step 3 / 4`);
  expect(states[4].detail).toBe('sft step 4 / 4 (training done; evaluating, finished: main, pass2)');
  expect(formatStatus('micro', states).split('\n')[0]).toBe('micro: 1/5 done, 1 training, 2 stopped, 1 not started');

  const reused = await experimentStatus(await loadExperiment(other), runs);
  expect(reused.map((s) => [s.arm, s.state, s.detail])).toEqual([
    ['x', 'done', `${states[0].detail} (reused: micro/a)`],
    ['y', 'not started', '(reused: micro/d)'],
  ]);
});

it('telepath status refuses a kind experiment and a missing file argument', async () => {
  const err = console.error;
  const printed: string[] = [];
  console.error = (s: string) => printed.push(s);
  try {
    expect(await main(['status'])).toBe(2);
    expect(await main(['status', join(process.cwd(), '../../experiments/thought-comm-synthetic.json')])).toBe(2);
  } finally {
    console.error = err;
  }
  expect(printed.join('\n')).toMatch(/expected one experiment file, got 0[\s\S]*is a "kind" experiment/);
});

it('lists below the rows what a run needs first: the unfinished arms an arm starts from, in a reused arm’s experiment too; --arms cuts as in run', async () => {
  const folder = mkdtempSync(join(tmpdir(), 'status-first-'));
  const runs = join(folder, 'runs');
  const write = (name: string, arms: object[]) => writeExperiment(folder, name, arms);
  write('refs', [
    { name: 'base', ...cot('no-cot', 2) },
    { name: 'tuned', initFrom: 'base', ...cot('no-cot', 2) },
  ]);
  const user = write('user', [
    { name: 'ref', reuse: 'refs/tuned' },
    { name: 'more', initFrom: 'ref', ...cot('no-cot', 2) },
    { name: 'alone', ...cot('no-cot', 2) },
  ]);
  const finish = (exp: string, arm: string) => {
    mkdirSync(join(runs, exp, arm, 's0'), { recursive: true });
    writeFileSync(join(runs, exp, arm, 's0', 'summary.json'), JSON.stringify({ accuracy: 0.5, stderr: 0.1 }));
  };
  const first = async () =>
    (await trainedFirst(await loadExperiment(user), runs)).map((s) => [s.arm, s.state, s.detail]);

  expect(await first()).toEqual([['refs/base', 'not started', 'refs/tuned s0 starts from it']]);
  finish('refs', 'base');
  expect(await first()).toEqual([['refs/base', 'done', '50.0 % ± 10.0; refs/tuned s0 starts from it']]);
  finish('refs', 'tuned');
  expect(await first()).toEqual([]); // refs/tuned is a row's (ref's) job: the table shows it

  const printed: string[] = [];
  const log = console.log;
  console.log = (s: string) => printed.push(s);
  try {
    expect(await main(['status', user, '--runs', runs, '--arms', 'alone'])).toBe(0);
  } finally {
    console.log = log;
  }
  expect(printed.join('\n')).toBe('user: 0/1 done, 0 training, 0 stopped, 1 not started\n  alone  s0   not started');
  await expect(main(['status', user, '--runs', runs, '--arms', 'nope'])).rejects.toThrow(
    /--arms: user has no arm "nope"/,
  );
});

it("gives a training phase's time left at the median of its last logged step times", async () => {
  const dir = mkdtempSync(join(tmpdir(), 'status-eta-'));
  const arm = (await loadExperiment(writeExperiment(dir, 'micro', [{ name: 'a', ...cot('no-cot', 1000) }]))).arms[0];
  const lines = [10, 20, 30].map((step, i) => `{"step":${step},"sft/loss":2.0,"sft/ms":${[100, 5000, 120][i]}}`);
  writeFileSync(join(dir, 'metrics.jsonl'), `${lines.join('\n')}\n{"step":30,"sft/lr":0.001}\n{"step":31,"sft/lo`);
  // 970 steps left at the median 120 ms (the 5-second step, a pause, does not count).
  expect(await lastStep(dir, arm)).toBe('sft step 30 / 1000, ≈ 1m56s left in sft (120 ms a step)');
});

it('names the phases still to train after the one in progress, with their steps', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'status-later-'));
  const coconut = {
    name: 'k2',
    method: 'soft-embedding',
    config: {
      variant: 'continuous-thought',
      latentTokens: 2,
      thoughtsPerStep: 1,
      stepsPerStage: 40,
      finalStageSteps: 30,
    },
  };
  const arm = (await loadExperiment(writeExperiment(dir, 'micro', [coconut]))).arms[0];
  const at = (phase: string, step: number) => `{"step":${step},"${phase}/loss":1.0,"${phase}/ms":200}\n`;
  writeFileSync(join(dir, 'metrics.jsonl'), at('stage1', 10));
  expect(await lastStep(dir, arm)).toBe(
    'stage1 step 10 / 40, ≈ 6s left in stage1 (200 ms a step); then stage2, stage3 (70 steps)',
  );
  writeFileSync(join(dir, 'metrics.jsonl'), at('stage1', 10) + at('stage2', 20));
  expect(await lastStep(dir, arm)).toBe(
    'stage2 step 20 / 40, ≈ 4s left in stage2 (200 ms a step); then stage3 (30 steps)',
  );
  writeFileSync(join(dir, 'metrics.jsonl'), at('stage3', 10));
  expect(await lastStep(dir, arm)).toBe('stage3 step 10 / 30, ≈ 4s left in stage3 (200 ms a step)');
});

/** An experiment file `<folder>/<name>.json` of the micro settings with these arms. */
function writeExperiment(folder: string, name: string, arms: object[]): string {
  const file = join(folder, `${name}.json`);
  writeFileSync(file, JSON.stringify({ name, ...MICRO_SETTINGS, arms }));
  return file;
}
