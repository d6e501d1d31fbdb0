/**
 * The queue end to end against a real redis-server (started here on 127.0.0.1 and a free port,
 * stopped afterwards), with `telepath worker` processes on micro experiments. Skipped, with the
 * reason, where redis-server is not installed; scripts/setup.sh installs it, so CI runs them.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { initBackend } from '@telepath/core';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadExperiment } from '../experiment/load-experiment.js';
import { runExperiment } from '../running/run-experiment.js';
import { metricLines, MICRO_SETTINGS } from '../testing.js';
import { queueCommand } from './command.js';
import { redisUnavailable, startRedis, type TestRedis } from './test-redis.js';

const cli = fileURLToPath(new URL('../cli.ts', import.meta.url));
const labDir = fileURLToPath(new URL('../..', import.meta.url));
const unavailable = redisUnavailable();

/** A micro experiment file in a fresh folder, with its runs folder beside it. */
function experiment(name: string, arms: object[], train: object = {}) {
  const folder = mkdtempSync(join(tmpdir(), `queue-${name}-`));
  const file = join(folder, `${name}.json`);
  writeFileSync(file, JSON.stringify({ name, ...MICRO_SETTINGS, train: { ...MICRO_SETTINGS.train, ...train }, arms }));
  return { file, runs: join(folder, 'runs') };
}

/** A `telepath worker` process; `done` resolves with its exit code and everything it logged. */
const started: ReturnType<typeof spawn>[] = [];
function worker(url: string, runs: string, ...args: string[]) {
  // One process (tsx as a loader, not its CLI, which would start a second): kill -9 hits the worker itself.
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', cli, 'worker', '--redis', url, '--runs', runs, '--backend', 'cpu', ...args],
    { cwd: labDir, stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, TELEPATH_NATIVE_THREADS: '1' } },
  );
  started.push(child);
  let log = '';
  child.stderr.on('data', (b: Buffer) => (log += b.toString()));
  const done = new Promise<{ code: number | null; log: string }>((resolve) =>
    child.on('exit', (code) => resolve({ code, log })),
  );
  return { child, done, log: () => log };
}

/** `telepath queue <args> --json`, in this process: its JSON line. */
async function queueJson(...args: string[]): Promise<unknown> {
  const out = vi.spyOn(console, 'log').mockImplementation(() => {});
  try {
    expect(await queueCommand([...args, '--json'])).toBe(0);
    return JSON.parse(String(out.mock.calls.at(-1)![0]));
  } finally {
    out.mockRestore();
  }
}

/** Training loss lines of a run as "phase:step" — a step trained twice shows up twice. */
function lossSteps(dir: string): string[] {
  return readFileSync(join(dir, 'metrics.jsonl'), 'utf8')
    .split('\n')
    .flatMap((l) => {
      try {
        return [JSON.parse(l) as Record<string, number>];
      } catch {
        return []; // empty, or being written
      }
    })
    .flatMap((r) =>
      Object.keys(r)
        .filter((k) => k.endsWith('/loss'))
        .map((k) => `${k.slice(0, -5)}:${r.step}`),
    );
}

async function until(what: string, ok: () => boolean, ms = 60_000): Promise<void> {
  for (const t0 = Date.now(); !ok(); await new Promise((r) => setTimeout(r, 50)))
    if (Date.now() - t0 > ms) throw new Error(`timed out waiting for ${what}`);
}

const count = (text: string, re: RegExp) => text.match(new RegExp(re, 'g'))?.length ?? 0;

describe.skipIf(unavailable !== null)(
  unavailable ? `queue (skipped: ${unavailable})` : 'queue on a real redis-server',
  () => {
    let redis: TestRedis;
    beforeAll(async () => {
      redis = await startRedis();
      await initBackend('cpu', { quiet: true });
    });
    afterAll(async () => redis?.stop());
    afterEach(() => {
      for (const child of started.splice(0)) if (child.exitCode === null) child.kill('SIGKILL'); // a test that failed midway
    });
    let db = 0;
    /** Each test's own Redis database: its workers never take another test's jobs. */
    const fresh = () => `${redis.url}/${++db}`;

    it('two workers share a micro experiment: every record complete, each arm trained once, a Coconut-style arm after its CoT source', async () => {
      const url = fresh();
      const { file, runs } = experiment('shared', [
        { name: 'cot', method: 'cot', config: { variant: 'cot', steps: 20 } },
        { name: 'no-cot', method: 'cot', config: { variant: 'no-cot', steps: 40 } },
        {
          name: 'coconut',
          method: 'soft-embedding',
          initFrom: 'cot',
          config: {
            variant: 'continuous-thought',
            latentTokens: 2,
            thoughtsPerStep: 1,
            stepsPerStage: 2,
            finalStageSteps: 2,
          },
        },
        {
          name: 'soft',
          method: 'soft-embedding',
          initFrom: 'cot',
          config: { variant: 'soft-tokens', latentTokens: 2, steps: 3 },
        },
      ]);
      expect(await queueJson('add', file, '--redis', url, '--runs', runs)).toEqual({ experiment: 'shared', jobs: 4 });
      // Another experiment reusing the CoT arm, with an arm that starts from it: one more job (CoT is queued already).
      const user = join(dirname(file), 'user.json');
      writeFileSync(
        user,
        JSON.stringify({
          name: 'user',
          ...MICRO_SETTINGS,
          arms: [
            { name: 'ref', reuse: 'shared/cot' },
            {
              name: 'mine',
              method: 'soft-embedding',
              initFrom: 'ref',
              config: { variant: 'soft-tokens', latentTokens: 1, steps: 2 },
            },
          ],
        }),
      );
      expect(await queueJson('add', user, '--redis', url, '--runs', runs)).toEqual({ experiment: 'user', jobs: 1 });
      const workers = [worker(url, runs, '--exit-when-idle'), worker(url, runs, '--exit-when-idle')];
      const [a, b] = await Promise.all(workers.map((w) => w.done));
      expect([a.code, b.code], a.log + b.log).toEqual([0, 0]);
      for (const arm of ['cot', 'no-cot', 'coconut', 'soft']) {
        const dir = join(runs, 'shared', arm, 's0');
        expect(existsSync(join(dir, 'summary.json')), arm).toBe(true);
        expect(count(a.log + b.log, new RegExp(`shared/${arm}/s0: started`))).toBe(1);
        const steps = lossSteps(dir);
        expect(new Set(steps).size, `${arm}: no step trained twice`).toBe(steps.length);
      }
      expect(count(a.log, /: started/), 'each worker took a job').toBeGreaterThan(0);
      expect(count(b.log, /: started/), 'each worker took a job').toBeGreaterThan(0);
      // The Coconut-style arm and the soft tokens started (wrote their model.json) after CoT's record was finished.
      const cotDone = statSync(join(runs, 'shared', 'cot', 's0', 'summary.json')).mtimeMs;
      for (const arm of ['coconut', 'soft'])
        expect(statSync(join(runs, 'shared', arm, 's0', 'model.json')).mtimeMs).toBeGreaterThanOrEqual(cotDone);
      expect(statSync(join(runs, 'user', 'mine', 's0', 'model.json')).mtimeMs).toBeGreaterThanOrEqual(cotDone);
      const ref = JSON.parse(readFileSync(join(runs, 'user', 'ref', 's0', 'summary.json'), 'utf8')) as Record<
        string,
        unknown
      >; // written by the worker that trained CoT
      expect(ref).toMatchObject({ experiment: 'user', arm: 'ref', reusedFrom: 'shared/cot' });
      expect(existsSync(join(runs, 'user', 'mine', 's0', 'summary.json'))).toBe(true);
      expect(await queueJson('status', file, '--redis', url, '--runs', runs)).toEqual({
        waiting: 0,
        active: 0,
        completed: 4,
        failed: 0,
      });
      expect(await queueJson('add', file, '--redis', url, '--runs', runs)).toEqual({ experiment: 'shared', jobs: 0 }); // finished: nothing added
    }, 180_000);

    it('kill -9 of a worker mid-training: another worker finishes the job from its checkpoint, with the metrics of a single-process run', async () => {
      const url = fresh();
      const arms = [{ name: 'cot', method: 'cot', config: { variant: 'cot', steps: 24 } }];
      const { file, runs } = experiment('killed', arms, { checkpointEvery: 4 });
      const dir = join(runs, 'killed', 'cot', 's0');
      expect(await queueJson('add', file, '--redis', url, '--runs', runs)).toEqual({ experiment: 'killed', jobs: 1 });
      const first = worker(url, runs, '--lock-seconds', '2');
      await until(
        'the first worker to pass step 9',
        () => existsSync(join(dir, 'metrics.jsonl')) && lossSteps(dir).length >= 9,
      );
      first.child.kill('SIGKILL');
      await first.done;
      expect(existsSync(join(dir, 'summary.json'))).toBe(false);
      const second = await worker(url, runs, '--lock-seconds', '2', '--exit-when-idle').done;
      expect(second.code, second.log).toBe(0);
      expect(second.log).toMatch(
        /killed\/cot\/s0: taken over from a worker that stopped; resuming from its checkpoints/,
      );
      const steps = lossSteps(dir);
      expect(steps.filter((s) => s === 'sft:1')).toHaveLength(1); // resumed, not started again
      expect(steps).toContain('sft:24');

      const single = join(mkdtempSync(join(tmpdir(), 'queue-single-')), 'runs');
      await runExperiment(await loadExperiment(file), { runsDir: single, quiet: true, log: () => {} });
      const summary = (d: string) =>
        JSON.parse(readFileSync(join(d, 'summary.json'), 'utf8')) as Record<string, unknown>;
      const pick = (s: Record<string, unknown>) => ({
        accuracy: s.accuracy,
        correct: s.correct,
        total: s.total,
        reasoningLength: s.reasoningLength,
      });
      expect(pick(summary(dir))).toEqual(pick(summary(join(single, 'killed', 'cot', 's0'))));
      const losses = (d: string) =>
        new Map(
          metricLines(d)
            .filter((r) => 'sft/loss' in r)
            .map((r) => [r.step, r['sft/loss']]),
        );
      // Every loss the two workers logged equals the single run's at that step (a hard kill may lose the lines since the last flush).
      const reference = losses(join(single, 'killed', 'cot', 's0'));
      expect([...losses(dir)].every(([step, loss]) => reference.get(step) === loss)).toBe(true);
      expect(losses(dir).get(24)).toBe(reference.get(24));
      expect(readFileSync(join(dir, 'samples.jsonl'), 'utf8')).toBe(
        readFileSync(join(single, 'killed', 'cot', 's0', 'samples.jsonl'), 'utf8'),
      ); // the same generations
    }, 180_000);

    it('a worker renews its lock while it trains; Ctrl-C stops it after a step with a checkpoint and hands its job back to the queue', async () => {
      const url = fresh();
      const { file, runs } = experiment('stopped', [
        { name: 'cot', method: 'cot', config: { variant: 'cot', steps: 400 } },
      ]);
      const dir = join(runs, 'stopped', 'cot', 's0');
      await queueJson('add', file, '--redis', url, '--runs', runs);
      const w = worker(url, runs, '--lock-seconds', '5');
      await until('the worker to start the job', () => /stopped\/cot\/s0: started/.test(w.log()));
      const started = Date.now();
      await until(
        'the worker to pass step 3, 8 s after it took the job',
        () => Date.now() - started > 8000 && existsSync(join(dir, 'metrics.jsonl')) && lossSteps(dir).length >= 3,
      );
      // Past its 5 s lock, still training: the worker has been renewing the lock.
      const redis = new Redis(url);
      expect(await redis.pttl('bull:telepath-arms:stopped/cot/s0:lock')).toBeGreaterThan(0);
      redis.disconnect();
      w.child.kill('SIGINT');
      const r = await w.done;
      expect(r.code, r.log).toBe(130);
      expect(r.log).toMatch(/stopped\/cot\/s0: stopped with a checkpoint; handed back to the queue/);
      expect(count(r.log, /: started|taken over/)).toBe(1); // never lost its lock, nor took the job again while stopping
      expect(existsSync(join(dir, 'sft.ckpt'))).toBe(true);
      expect(await queueJson('status', file, '--redis', url, '--runs', runs)).toEqual({
        waiting: 1,
        active: 0,
        completed: 0,
        failed: 0,
      });
    }, 180_000);

    it('a worker that loses its lock stops the job after a step, and the job resumes from its checkpoint, each step trained once', async () => {
      const url = fresh();
      const { file, runs } = experiment('lost', [
        { name: 'cot', method: 'cot', config: { variant: 'cot', steps: 30 } },
      ]);
      const dir = join(runs, 'lost', 'cot', 's0');
      await queueJson('add', file, '--redis', url, '--runs', runs);
      const w = worker(url, runs, '--lock-seconds', '3', '--exit-when-idle');
      await until(
        'the worker to pass step 3',
        () => existsSync(join(dir, 'metrics.jsonl')) && lossSteps(dir).length >= 3,
      );
      const redis = new Redis(url);
      expect(await redis.del('bull:telepath-arms:lost/cot/s0:lock')).toBe(1); // as if this worker had been held up past its lock
      redis.disconnect();
      const r = await w.done;
      expect(r.code, r.log).toBe(0);
      expect(r.log).toMatch(/lost\/cot\/s0: could not renew its lock .*; stopping it here/);
      expect(r.log).toMatch(/lost\/cot\/s0: taken over from a worker that stopped; resuming from its checkpoints/);
      const steps = lossSteps(dir);
      expect(steps).toHaveLength(30);
      expect(new Set(steps).size).toBe(30);
      expect(await queueJson('status', file, '--redis', url, '--runs', runs)).toEqual({
        waiting: 0,
        active: 0,
        completed: 1,
        failed: 0,
      });
    }, 180_000);

    it('Redis restarted mid-run: the worker reconnects, and nothing is lost or trained twice', async () => {
      const url = fresh();
      const arms = [
        { name: 'a', method: 'cot', config: { variant: 'no-cot', steps: 40 } },
        { name: 'b', method: 'cot', config: { variant: 'no-cot', steps: 10 } },
      ];
      const { file, runs } = experiment('restart', arms, { checkpointEvery: 10 });
      expect(await queueJson('add', file, '--redis', url, '--runs', runs)).toEqual({ experiment: 'restart', jobs: 2 });
      const w = worker(url, runs, '--lock-seconds', '10', '--exit-when-idle');
      const metrics = join(runs, 'restart', 'a', 's0', 'metrics.jsonl');
      await until(
        'arm a to be training',
        () => existsSync(metrics) && lossSteps(join(runs, 'restart', 'a', 's0')).length >= 5,
      );
      await redis.restart();
      const r = await w.done;
      expect(r.code, r.log).toBe(0);
      expect(r.log).toMatch(
        /lost Redis at redis:\/\/127\.0\.0\.1:\d+\/\d+; reconnecting — training goes on\n.*Redis is back/,
      );
      for (const arm of ['a', 'b']) {
        const dir = join(runs, 'restart', arm, 's0');
        expect(existsSync(join(dir, 'summary.json')), arm).toBe(true);
        expect(count(r.log, new RegExp(`restart/${arm}/s0: started`))).toBe(1);
        const steps = lossSteps(dir);
        expect(new Set(steps).size, `${arm}: no step trained twice`).toBe(steps.length);
      }
      expect(await queueJson('status', file, '--redis', url, '--runs', runs)).toEqual({
        waiting: 0,
        active: 0,
        completed: 2,
        failed: 0,
      });
    }, 180_000);

    it('a failed job fails once with its error in queue status, and the arms after it still run', async () => {
      const url = fresh();
      const { file, runs } = experiment('failing', [
        { name: 'src', method: 'cot', config: { variant: 'no-cot', steps: 3 } },
        { name: 'bad', method: 'cot', initFrom: 'src', lm: { width: 32 }, config: { variant: 'no-cot', steps: 3 } }, // another LM size than its source: fails when it loads it
        { name: 'after-src', method: 'cot', initFrom: 'src', config: { variant: 'no-cot', steps: 3 } },
      ]);
      expect(await queueJson('add', file, '--redis', url, '--runs', runs)).toEqual({ experiment: 'failing', jobs: 3 });
      const r = await worker(url, runs, '--exit-when-idle').done;
      expect(r.code, r.log).toBe(0); // idle: the failed job is not waiting to be retried
      expect(count(r.log, /failing\/bad\/s0: started/)).toBe(1);
      expect(r.log).toMatch(/failing\/bad\/s0 failed: initFrom: model\.json of .* differs/);
      expect(existsSync(join(runs, 'failing', 'after-src', 's0', 'summary.json'))).toBe(true);
      expect(await queueJson('status', file, '--redis', url, '--runs', runs)).toEqual({
        waiting: 0,
        active: 0,
        completed: 2,
        failed: 1,
      });
      const text = vi.spyOn(console, 'log').mockImplementation(() => {});
      await queueCommand(['status', file, '--redis', url, '--runs', runs]);
      expect(text.mock.calls.map((c) => c[0]).join('\n')).toMatch(
        /failing\/bad\/s0\s+failed\s+initFrom: model\.json of .* differs/,
      );
      text.mockRestore();
      // Added again, the failed job is queued again (and fails again: its config is unchanged); the finished ones are not.
      expect(await queueJson('add', file, '--redis', url, '--runs', runs)).toEqual({ experiment: 'failing', jobs: 1 });
      const again = await worker(url, runs, '--exit-when-idle').done;
      expect(count(again.log, /: started/)).toBe(1);
      expect(again.log).toMatch(/failing\/bad\/s0 failed: initFrom: model\.json of .* differs/);
    }, 180_000);
  },
);
