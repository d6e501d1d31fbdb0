/**
 * scripts/keep-records.sh: finished runs kept without their checkpoints read back as they were
 * (accuracies and the paired column), without training again; unfinished runs are not kept; the
 * lab refuses to train into a folder of kept records; --weights keeps final.ckpt, from which a later
 * arm starts on another machine without the source arm training again.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { initBackend } from '@telepath/core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { validateExperiment } from '../experiment/experiment.js';
import { MICRO_SETTINGS } from '../testing.js';
import { KEPT_RECORDS_MARKER, runExperiment } from './run-experiment.js';

const SCRIPT = fileURLToPath(new URL('../../../../scripts/keep-records.sh', import.meta.url));
const tmp = mkdtempSync(join(tmpdir(), 'keep-records-'));
const quiet = { quiet: true, log: () => {} };
beforeAll(async () => void (await initBackend('cpu', { quiet: true })));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const files = (dir: string): string[] =>
  readdirSync(dir).flatMap((f) => (statSync(join(dir, f)).isDirectory() ? files(join(dir, f)) : [join(dir, f)]));

it(
  'kept records read back with the same table and paired column, and nothing trains again',
  { timeout: 120_000 },
  async () => {
    const arms = [
      { name: 'no-cot', method: 'cot', config: { variant: 'no-cot', steps: 3 } },
      { name: 'cot', method: 'cot', config: { variant: 'cot', steps: 3 } },
    ];
    const raw = { name: 'kept', ...MICRO_SETTINGS, arms, compareTo: ['no-cot'] };
    const exp = validateExperiment(raw, 'kept.json');
    const runs = join(tmp, 'runs');
    const trained = await runExperiment(exp, { runsDir: runs, ...quiet });
    const records = join(tmp, 'records');
    const out = execFileSync('bash', [SCRIPT, runs, 'kept'], {
      env: { ...process.env, KEEP_RECORDS_TO: records },
      encoding: 'utf8',
    });
    expect(out).toMatch(/kept .*kept\/cot\/s0/);
    const kept = files(records);
    expect(kept.some((f) => f.endsWith('summary.json'))).toBe(true);
    expect(kept.filter((f) => f.endsWith('.ckpt'))).toEqual([]);

    const read = await runExperiment(exp, { runsDir: records, ...quiet });
    expect(read.rows).toEqual(trained.rows);
    expect(read.rows.find((r) => r.arm === 'cot')!.paired.length).toBeGreaterThan(0);
    expect(files(records).filter((f) => f.endsWith('.ckpt'))).toEqual([]); // read, not retrained

    // An arm not kept there, or --force, would train into the kept records: refused before any step.
    expect(existsSync(join(records, KEPT_RECORDS_MARKER))).toBe(true);
    const more = validateExperiment(
      { ...raw, arms: [...arms, { name: 'longer', method: 'cot', config: { variant: 'cot', steps: 4 } }] },
      'kept.json',
    );
    await expect(runExperiment(more, { runsDir: records, ...quiet })).rejects.toThrow(
      /holds kept records .*never trained; not kept there: kept\/longer s0\. Train with another --runs/,
    );
    await expect(runExperiment(exp, { runsDir: records, force: true, ...quiet })).rejects.toThrow(
      /--force would retrain kept\/no-cot s0, kept\/cot s0/,
    );
    expect(existsSync(join(records, 'kept', 'longer'))).toBe(false);
  },
);

it('refuses a missing experiment, and skips a run without summary.json', () => {
  const missing = spawnSync('bash', [SCRIPT, join(tmp, 'nowhere'), 'kept'], { encoding: 'utf8' });
  expect(missing.status).toBe(2);
  expect(missing.stderr).toMatch(/no runs of kept in .*nowhere/);
  rmSync(join(tmp, 'runs', 'kept', 'no-cot', 's0', 'summary.json'));
  const partial = spawnSync('bash', [SCRIPT, join(tmp, 'runs'), 'kept', 'no-cot'], {
    env: { ...process.env, KEEP_RECORDS_TO: join(tmp, 'partial') },
    encoding: 'utf8',
  });
  expect(partial.status).toBe(2);
  expect(partial.stderr).toMatch(/s0 is not finished \(no summary.json\); skipped/);
  expect(existsSync(join(tmp, 'partial', 'kept', 'no-cot', 's0'))).toBe(false);
});

it(
  '--weights keeps final.ckpt, and a later arm starts from it in another runs folder',
  { timeout: 120_000 },
  async () => {
    const source = { name: 'cot', method: 'cot', config: { variant: 'cot', steps: 3 } };
    const raw = { name: 'weights', ...MICRO_SETTINGS, arms: [source] };
    const runs = join(tmp, 'weights-runs');
    await runExperiment(validateExperiment(raw, 'weights.json'), { runsDir: runs, ...quiet });
    const records = join(tmp, 'weights-records');
    execFileSync('bash', [SCRIPT, '--weights', runs, 'weights'], {
      env: { ...process.env, KEEP_RECORDS_TO: records },
      encoding: 'utf8',
    });
    const kept = files(records).filter((f) => f.endsWith('.ckpt'));
    expect(kept.map((f) => f.slice(records.length))).toEqual(['/weights/cot/s0/final.ckpt']);
    // Kept again without --weights, the same run keeps the weights kept before; another run's go.
    const again0 = execFileSync('bash', [SCRIPT, runs, 'weights'], {
      env: { ...process.env, KEEP_RECORDS_TO: records },
      encoding: 'utf8',
    });
    expect(again0).toMatch(/kept .*weights\/cot\/s0 .*; kept from before: final\.ckpt/);
    expect(existsSync(join(records, 'weights', 'cot', 's0', 'final.ckpt'))).toBe(true);
    const other = join(tmp, 'weights-other-runs'); // a run retrained since: its summary differs
    cpSync(runs, other, { recursive: true });
    const summaryFile = join(other, 'weights', 'cot', 's0', 'summary.json');
    writeFileSync(summaryFile, readFileSync(summaryFile, 'utf8') + '\n');
    const records2 = join(tmp, 'weights-records-2');
    cpSync(records, records2, { recursive: true });
    const otherRun = spawnSync('bash', [SCRIPT, other, 'weights'], {
      env: { ...process.env, KEEP_RECORDS_TO: records2 },
      encoding: 'utf8',
    });
    expect(otherRun.status).toBe(0);
    expect(otherRun.stderr).toMatch(
      /weights\/cot\/s0 held final\.ckpt of another run \(its summary differs\); not kept/,
    );
    expect(existsSync(join(records2, 'weights', 'cot', 's0', 'final.ckpt'))).toBe(false);

    // A fresh runs folder holding only the kept record: an arm that evaluates the source's weights
    // (0 steps from initFrom) answers exactly as the source did, and the source does not train again.
    const elsewhere = join(tmp, 'weights-elsewhere');
    cpSync(join(records, 'weights'), join(elsewhere, 'weights'), { recursive: true });
    const again = { name: 'again', method: 'cot', initFrom: 'cot', config: { variant: 'cot', steps: 0 } };
    await runExperiment(validateExperiment({ ...raw, arms: [source, again] }, 'weights.json'), {
      runsDir: elsewhere,
      ...quiet,
    });
    const samples = (arm: string) => readFileSync(join(elsewhere, 'weights', arm, 's0', 'samples.jsonl'), 'utf8');
    expect(samples('again')).toBe(samples('cot'));
    expect(readdirSync(join(elsewhere, 'weights', 'cot', 's0')).filter((f) => f.endsWith('.ckpt'))).toEqual([
      'final.ckpt',
    ]);

    // A record kept without its weights is read back but cannot be started from: said, naming it.
    rmSync(join(elsewhere, 'weights', 'cot', 's0', 'final.ckpt'));
    rmSync(join(elsewhere, 'weights', 'again'), { recursive: true });
    await expect(
      runExperiment(validateExperiment({ ...raw, arms: [source, again] }, 'weights.json'), {
        runsDir: elsewhere,
        ...quiet,
      }),
    ).rejects.toThrow(/initFrom: .*cot\/s0 has finished but holds no weights \(no final\.ckpt or sft\.ckpt/);

    // A run without final.ckpt cannot be kept with its weights: said, and nothing half-kept.
    rmSync(join(runs, 'weights', 'cot', 's0', 'final.ckpt'));
    const missing = spawnSync('bash', [SCRIPT, '--weights', runs, 'weights'], {
      env: { ...process.env, KEEP_RECORDS_TO: join(tmp, 'weights-missing') },
      encoding: 'utf8',
    });
    expect(missing.status).toBe(2);
    expect(missing.stderr).toMatch(/s0 has no final.ckpt to keep \(--weights\)/);
    expect(existsSync(join(tmp, 'weights-missing', 'weights', 'cot', 's0'))).toBe(false);
  },
);

it('keeps a latent arm’s latents.bin only with --latents (either flag order)', () => {
  const run = join(tmp, 'latent-runs', 'latent', 'soft', 's0');
  mkdirSync(run, { recursive: true });
  for (const f of ['summary.json', 'latents.bin', 'final.ckpt']) writeFileSync(join(run, f), '{}');
  const keep = (flags: string[], to: string) => {
    execFileSync('bash', [SCRIPT, ...flags, join(tmp, 'latent-runs'), 'latent'], {
      env: { ...process.env, KEEP_RECORDS_TO: join(tmp, to) },
      encoding: 'utf8',
    });
    return readdirSync(join(tmp, to, 'latent', 'soft', 's0')).sort();
  };
  expect(keep([], 'no-latents')).toEqual(['summary.json']);
  expect(keep(['--latents'], 'latents')).toEqual(['latents.bin', 'summary.json']);
  expect(keep(['--latents', '--weights'], 'both')).toEqual(['final.ckpt', 'latents.bin', 'summary.json']);
});

it('keeps an experiment without arms (thought-comm agents: <experiment>/s<seed>) when no arm is named, states.bin only with --latents', () => {
  const runs = join(tmp, 'agents-runs');
  for (const seed of ['s0', 's1']) {
    mkdirSync(join(runs, 'agents', seed), { recursive: true });
    for (const f of ['summary.json', 'samples.jsonl', 'states.bin', 'adapter-task.ckpt'])
      writeFileSync(join(runs, 'agents', seed, f), '{}');
  }
  rmSync(join(runs, 'agents', 's1', 'summary.json')); // unfinished: skipped
  const keep = (flags: string[], to: string) =>
    execFileSync('bash', [SCRIPT, ...flags, runs, 'agents'], {
      env: { ...process.env, KEEP_RECORDS_TO: join(tmp, to) },
      encoding: 'utf8',
    });
  expect(keep([], 'agents-kept')).toMatch(/kept .*agents-kept\/agents\/s0 /);
  expect(readdirSync(join(tmp, 'agents-kept', 'agents'))).toEqual(['s0']);
  expect(readdirSync(join(tmp, 'agents-kept', 'agents', 's0')).sort()).toEqual(['samples.jsonl', 'summary.json']);
  keep(['--latents'], 'agents-latents');
  expect(readdirSync(join(tmp, 'agents-latents', 'agents', 's0')).sort()).toEqual([
    'samples.jsonl',
    'states.bin',
    'summary.json',
  ]);
});
