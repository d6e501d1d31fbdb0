/**
 * Issue 26, the lab's rows: each fault of the fault probe reproduced on a micro experiment, and the
 * loud, correct outcome asserted (core's rows: packages/core/src/integrity.test.ts; Countdown's
 * absurd numbers: packages/tasks/src/countdown/load-limits.test.ts).
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, initBackend } from '@telepath/core';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { cliErrorText } from './cli.js';
import { evalCommand, evalResultBase } from './commands/eval.js';
import { validateExperiment } from './experiment/experiment.js';
import { reportCommand } from './commands/report.js';
import { runExperiment } from './running/run-experiment.js';
import { acquireRunLock, lockFileOf, lockState } from './running/run-lock.js';
import { retrainDirOf } from './running/run-arm.js';
import { MICRO_SETTINGS } from './testing.js';

beforeAll(async () => {
  await initBackend('cpu', { quiet: true });
});

const quiet = { quiet: true, log: () => {} };
const MICRO = {
  name: 'micro',
  ...MICRO_SETTINGS,
  arms: [{ name: 'cot', method: 'cot', config: { variant: 'cot', steps: 4 } }],
};
const withArm = (config: object) => ({
  ...MICRO,
  arms: [{ name: 'cot', method: 'cot', config: { variant: 'cot', steps: 4, ...config } }],
});
const countdownLine = '{"input": "3,5,7", "output": "15"}\n{"input": "2,4,6", "output": "12"}\n';

describe('settings that would train or evaluate nothing, or diverge, are refused up front', () => {
  it.each([
    [withArm({ steps: -5 }), /arms\[0\] \(cot\) config.*steps|phase sft: steps must be an integer ≥ 0, got -5/],
    [withArm({ steps: 10.5 }), /phase sft: steps must be an integer ≥ 0, got 10\.5/],
    [withArm({ steps: 0 }), /arms\[0\] \(cot\): trains 0 steps from a random init/],
    [
      { ...MICRO, train: { ...MICRO.train, optim: { lr: -1 } } },
      /train\.optim\.lr must be a finite number > 0, got -1/,
    ],
    [
      { ...MICRO, train: { ...MICRO.train, optim: { clipNorm: -1 } } },
      /train\.optim\.clipNorm \(0: no clipping\) must be a finite number ≥ 0, got -1/,
    ],
    [
      { ...MICRO, train: { ...MICRO.train, checkpointEvery: 0 } },
      /train\.checkpointEvery must be an integer ≥ 1, got 0/,
    ],
    [{ ...MICRO, data: { ...MICRO.data, testCount: 0 } }, /data\.testCount must be an integer ≥ 1, got 0/],
    [{ ...MICRO, data: { ...MICRO.data, trainCount: 2.5 } }, /data\.trainCount must be an integer ≥ 1, got 2\.5/],
    [{ ...MICRO, eval: { ...MICRO.eval, topP: 0 } }, /eval\.topP must be a finite number > 0 and ≤ 1, got 0/],
  ] as [object, RegExp][])('%#: %j', (raw, message) => {
    expect(() => validateExperiment(raw, 'micro.json')).toThrow(message);
  });

  it("zero steps from an earlier arm's weights is still allowed (it evaluates them)", () => {
    expect(() =>
      validateExperiment(
        {
          ...MICRO,
          arms: [
            MICRO.arms[0],
            { name: 'again', method: 'cot', initFrom: 'cot', config: { variant: 'cot', steps: 0 } },
          ],
        },
        'micro.json',
      ),
    ).not.toThrow();
  });
});

it('a set context length shorter than the longest example is refused before the first step, with the length that fits', async () => {
  const runs = mkdtempSync(join(tmpdir(), 'short-context-'));
  try {
    const exp = validateExperiment({ ...MICRO, lm: { ...MICRO.lm, contextLength: 8 } }, 'micro.json');
    await expect(runExperiment(exp, { runsDir: runs, ...quiet })).rejects.toThrow(
      /arm cot: lm\.contextLength 8 is shorter than the longest example \(\d+ tokens, of the training sample and the test set\); set it to at least \d+, or to 0/,
    );
    expect(existsSync(join(runs, 'micro', 'cot', 's0', 'metrics.jsonl'))).toBe(false);
  } finally {
    rmSync(runs, { recursive: true, force: true });
  }
});

describe('telepath on a finished micro run', () => {
  const runs = mkdtempSync(join(tmpdir(), 'loud-'));
  const dir = join(runs, 'micro', 'cot', 's0');
  beforeAll(async () => {
    await runExperiment(validateExperiment(MICRO, 'micro.json'), { runsDir: runs, ...quiet });
  });

  it('eval refuses a final.ckpt with one flipped header bit (a tensor offset), naming the file', async () => {
    const ckpt = join(dir, 'final.ckpt');
    const good = readFileSync(ckpt);
    const bad = Buffer.from(good);
    const offset = good.indexOf('"offset":', good.indexOf('"offset":') + 1) + '"offset":'.length;
    bad[offset] ^= 0x01;
    writeFileSync(ckpt, bad);
    const file = join(runs, 'flip.jsonl');
    writeFileSync(file, countdownLine);
    try {
      await expect(evalCommand([dir, '--data', file, '--backend', 'cpu'])).rejects.toThrow(
        /final\.ckpt is corrupt .*sha256/,
      );
    } finally {
      writeFileSync(ckpt, good);
    }
  });

  it('eval refuses an empty --data file instead of reporting 0.0 % (0/0)', async () => {
    const file = join(runs, 'empty.jsonl');
    writeFileSync(file, '');
    await expect(evalCommand([dir, '--data', file, '--backend', 'cpu'])).rejects.toThrow(
      /empty\.jsonl: no examples to evaluate/,
    );
  });

  it('two eval --data files with the same base name keep separate results', async () => {
    const [a, b] = ['a', 'b'].map((d) => join(runs, d, 'test.jsonl'));
    mkdirSync(join(runs, 'a'));
    mkdirSync(join(runs, 'b'));
    writeFileSync(a, countdownLine);
    writeFileSync(b, '{"input": "3,5,7", "output": "15"}\n');
    vi.spyOn(console, 'log').mockImplementation(() => {});
    vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      for (const f of [a, b]) expect(await evalCommand([dir, '--data', f, '--backend', 'cpu'])).toBe(0);
    } finally {
      vi.restoreAllMocks();
    }
    expect(evalResultBase(a)).not.toBe(evalResultBase(b));
    const read = (f: string) =>
      JSON.parse(readFileSync(join(dir, `${evalResultBase(f)}.json`), 'utf8')) as { data: string; total: number };
    expect([read(a).data, read(a).total]).toEqual([a, 2]);
    expect([read(b).data, read(b).total]).toEqual([b, 1]);
  });

  it('report names a truncated summary.json; status does too', async () => {
    const summary = join(dir, 'summary.json');
    const good = readFileSync(summary);
    writeFileSync(summary, good.subarray(0, 40));
    try {
      const named = new RegExp(`${summary.replace(/[.]/g, '\\.')} is truncated or not valid JSON`);
      await expect(reportCommand([join(runs, 'micro'), '--quiet'])).rejects.toThrow(named);
      const { experimentStatus } = await import('./commands/status.js');
      await expect(experimentStatus(validateExperiment(MICRO, 'micro.json'), runs)).rejects.toThrow(named);
    } finally {
      writeFileSync(summary, good);
    }
  });

  it('report refuses to average fewer seeds, naming the missing one; --allow-missing reports with a warning', async () => {
    const s1 = join(runs, 'micro', 'cot', 's1');
    mkdirSync(s1);
    mkdirSync(join(runs, 'micro', 'no-cot', 's0'), { recursive: true });
    writeFileSync(join(runs, 'micro', 'no-cot', 's0', 'summary.json'), readFileSync(join(dir, 'summary.json')));
    try {
      await expect(reportCommand([join(runs, 'micro'), '--quiet'])).rejects.toThrow(
        /2 arm × seed record\(s\) missing.*cot s1 \(.*cot\/s1\/summary\.json: not finished\); no-cot s1 \(no .*no-cot\/s1\)/,
      );
      const warn = vi.spyOn(console, 'error').mockImplementation(() => {});
      expect(await reportCommand([join(runs, 'micro'), '--quiet', '--allow-missing'])).toBe(0);
      expect(warn.mock.calls.map((c) => String(c[0])).filter((l) => l.includes('missing'))).toHaveLength(2);
      vi.restoreAllMocks();
    } finally {
      rmSync(s1, { recursive: true });
      rmSync(join(runs, 'micro', 'no-cot'), { recursive: true });
    }
    expect(await reportCommand([join(runs, 'micro'), '--quiet'])).toBe(0);
  });

  it('--force killed midway keeps the finished record; completed, it swaps the new one in', async () => {
    const before = readFileSync(join(dir, 'summary.json'), 'utf8');
    const exp = validateExperiment(MICRO, 'micro.json');
    let polls = 0;
    const stopped = await runExperiment(exp, { runsDir: runs, force: true, shouldStop: () => ++polls >= 2, ...quiet });
    expect(stopped.interrupted).toBe(true);
    expect(readFileSync(join(dir, 'summary.json'), 'utf8')).toBe(before);
    expect(existsSync(join(retrainDirOf(dir), 'sft.ckpt'))).toBe(true);
    // A crash between the swap's two renames: no record at dir, the complete retrain beside it.
    const done = await runExperiment(exp, { runsDir: runs, force: true, ...quiet });
    const finishedAt = (r: object) => (r as { finishedAt: string }).finishedAt;
    expect(finishedAt(done.results[0])).not.toBe(JSON.parse(before).finishedAt);
    expect(existsSync(retrainDirOf(dir))).toBe(false);
    const { renameSync } = await import('node:fs');
    renameSync(dir, retrainDirOf(dir));
    const again = await runExperiment(exp, { runsDir: runs, ...quiet });
    expect(finishedAt(again.results[0])).toBe(finishedAt(done.results[0])); // the swap completed, nothing retrained
    expect(existsSync(join(dir, 'summary.json'))).toBe(true);
    // A crash before the swap: the old record at dir, the complete retrain beside it.
    const { cpSync } = await import('node:fs');
    cpSync(dir, retrainDirOf(dir), { recursive: true });
    const retrained = JSON.parse(readFileSync(join(retrainDirOf(dir), 'summary.json'), 'utf8')) as {
      finishedAt: string;
    };
    writeFileSync(join(retrainDirOf(dir), 'summary.json'), JSON.stringify({ ...retrained, finishedAt: 'retrained' }));
    const swapped = await runExperiment(exp, { runsDir: runs, ...quiet });
    expect(finishedAt(swapped.results[0])).toBe('retrained');
    expect(existsSync(retrainDirOf(dir))).toBe(false);
  });
});

describe('a crash mid-training, then resume', () => {
  it('logs each step once in metrics.jsonl and counts the training time before the crash', async () => {
    const runs = mkdtempSync(join(tmpdir(), 'crash-'));
    const exp = validateExperiment(MICRO, 'micro.json');
    let polls = 0;
    // shouldStop is polled after each step's log line and checkpoint; throwing there after step 3
    // is a kill: steps 1-3 logged, the last checkpoint step 2's.
    const crash = () => {
      if (++polls === 3) throw new Error('killed');
      return false;
    };
    await expect(runExperiment(exp, { runsDir: runs, shouldStop: crash, ...quiet })).rejects.toThrow('killed');
    const dir = join(runs, 'micro', 'cot', 's0');
    const steps = () =>
      readFileSync(join(dir, 'metrics.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Record<string, number>)
        .filter((l) => 'sft/loss' in l)
        .map((l) => l.step);
    expect(steps()).toEqual([1, 2, 3]);
    writeFileSync(join(dir, 'metrics.jsonl'), readFileSync(join(dir, 'metrics.jsonl'), 'utf8') + '{"step": 4, "sft/lo'); // and a torn line
    const { readCheckpoint } = await import('@telepath/core');
    const beforeCrash = ((await readCheckpoint(join(dir, 'sft.ckpt'))).meta.extra as { seconds: number }).seconds;
    const res = await runExperiment(exp, { runsDir: runs, ...quiet });
    expect(steps()).toEqual([1, 2, 3, 4]);
    expect(res.results[0].trainSeconds).toBeGreaterThan(beforeCrash);
  });
});

describe('locks that cannot hang', () => {
  const lockedDir = () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'lock-')), 's0');
    mkdirSync(join(dir, '..'), { recursive: true });
    return dir;
  };

  it('a lock whose pid now belongs to another process (another start time) is stale and taken over', async () => {
    const dir = lockedDir();
    writeFileSync(lockFileOf(dir), JSON.stringify({ pid: process.pid, host: hostname(), since: 'then', started: '1' }));
    const s = await lockState(dir);
    expect(s.state === 'stale' && s.why).toBe(
      `pid ${process.pid} now belongs to another process (started at another time)`,
    );
    const lock = await acquireRunLock(dir, { pollMs: 5, shouldStop: () => true });
    expect(lock).not.toBeNull();
    expect(JSON.parse(readFileSync(lockFileOf(dir), 'utf8')).since).not.toBe('then');
    expect((await lockState(dir)).state).toBe('live');
    await lock!.release();
  });

  it('a lock from another host waits while its heartbeat is fresh, saying how to clear it, and is taken over once it stops', async () => {
    const dir = lockedDir();
    writeFileSync(lockFileOf(dir), JSON.stringify({ pid: 4242, host: 'elsewhere', since: 'then' }));
    const waits: string[] = [];
    expect(
      await acquireRunLock(dir, { pollMs: 5, onWait: (_h, why) => waits.push(why), shouldStop: () => true }),
    ).toBeNull();
    expect(waits[0]).toMatch(
      new RegExp(
        `^pid 4242 on host elsewhere, last heartbeat \\d+ s ago \\(taken over after 10 min without one; if that process is gone, rm ${lockFileOf(dir).replace(/[.]/g, '\\.')}\\)$`,
      ),
    );
    const old = new Date(Date.now() - 11 * 60_000);
    utimesSync(lockFileOf(dir), old, old);
    const s = await lockState(dir);
    expect(s.state === 'stale' && s.why).toMatch(
      /^held by pid 4242 on host elsewhere, whose last heartbeat was 6\d\d s ago$/,
    );
    const lock = await acquireRunLock(dir, { pollMs: 5, shouldStop: () => true });
    expect(JSON.parse(readFileSync(lockFileOf(dir), 'utf8')).host).toBe(hostname());
    await lock!.release();
  });

  it('status tells a stale lock from training', async () => {
    const { experimentStatus } = await import('./commands/status.js');
    const runs = mkdtempSync(join(tmpdir(), 'stale-'));
    const dir = join(runs, 'micro', 'cot', 's0');
    mkdirSync(dir, { recursive: true });
    writeFileSync(lockFileOf(dir), JSON.stringify({ pid: process.pid, host: hostname(), since: 'then', started: '1' }));
    const [state] = await experimentStatus(validateExperiment(MICRO, 'micro.json'), runs);
    expect([state.state, state.detail]).toEqual([
      'stale lock',
      `pid ${process.pid} now belongs to another process (started at another time)`,
    ]);
  });
});

describe('errors for users', () => {
  it('a user error is one line with no stack; a bug keeps its stack', () => {
    let userError: unknown;
    try {
      validateExperiment({ ...MICRO, trian: {} }, 'micro.json');
    } catch (e) {
      userError = e;
    }
    expect(userError).toBeInstanceOf(ConfigError);
    expect(cliErrorText(userError)).toBe(
      'telepath: micro.json: unknown config key "trian". Expected one of: name, description, task, data, seeds, lm, train, eval, arms, compareTo, profiles, sweep, why',
    );
    const wrapped = new Error(`micro cot s0: ${(userError as Error).message}`, { cause: userError });
    expect(cliErrorText(wrapped).split('\n')).toHaveLength(1);
    const bug = new TypeError('x is undefined');
    expect(cliErrorText(bug).split('\n').length).toBeGreaterThan(2);
    expect(cliErrorText(new Error('run failed', { cause: bug }))).toContain('TypeError: x is undefined\n    at ');
  });

  it('an unknown option is one line that points to --help, not a stack', async () => {
    const { runCommand } = await import('./commands/run.js');
    const err = await runCommand(['experiments/countdown3-refs.json', '--dry-run']).then(
      () => null,
      (e: unknown) => e,
    );
    expect(cliErrorText(err)).toBe(
      "telepath: Unknown option '--dry-run' (telepath <command> --help lists the options)",
    );
  });
});
