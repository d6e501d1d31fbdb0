import { appendFileSync, chmodSync, mkdtempSync, readFileSync } from 'node:fs';
import { availableParallelism, cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { initBackend } from './backend.js';
import { configDifferences, readJsonl, RunRecord } from './run-record.js';

beforeAll(async () => {
  await initBackend('cpu', { quiet: true });
});

describe('RunRecord', () => {
  it('writes config, env, metrics, samples and summary', async () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'rec-')), 'run');
    const rec = await RunRecord.open(dir, { lr: 1 }, { datasets: { 'gsm8k/test': 'abc' } });
    await rec.log(10, { 'train/loss': 1.5 });
    await rec.log(20, { 'train/loss': 1.2, 'val/acc': 0.3 });
    await rec.sample({ id: 'q1', text: '42' });
    await rec.finish({ accuracy: 0.3 });
    expect(JSON.parse(readFileSync(join(dir, 'config.resolved.json'), 'utf8'))).toEqual({ lr: 1 });
    const env = JSON.parse(readFileSync(join(dir, 'env.json'), 'utf8'));
    expect(env.backend.backend).toBe('cpu');
    expect(env.fusedKernels).toEqual([]); // cpu registers none
    expect(env.datasets).toEqual({ 'gsm8k/test': 'abc' });
    expect(env.tfjs).toBe('4.22.0');
    expect(typeof env.git.sha === 'string' || env.git.sha === null).toBe(true);
    expect(env.cpus).toBe(availableParallelism()); // was 0 on Node 20 (navigator.hardwareConcurrency)
    expect(env.cpus).toBeGreaterThan(0);
    expect(env.cpuModel).toBe(cpus()[0]?.model.trim() ?? '');
    expect(await RunRecord.readMetrics(dir)).toEqual([
      { step: 10, 'train/loss': 1.5 },
      { step: 20, 'train/loss': 1.2, 'val/acc': 0.3 },
    ]);
    expect(JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')).accuracy).toBe(0.3);
  });

  it('keeps log lines in call order when callers do not await', async () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'rec-')), 'run');
    const rec = await RunRecord.open(dir, {});
    for (let i = 0; i < 50; i++) void rec.log(i, { x: i });
    await rec.flush();
    expect((await RunRecord.readMetrics(dir)).map((m) => m.step)).toEqual(Array.from({ length: 50 }, (_, i) => i));
  });

  it('ignores a torn last line but reports a bad line in the middle with file and line', async () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'rec-')), 'run');
    const rec = await RunRecord.open(dir, {});
    await rec.log(1, { a: 1 });
    appendFileSync(rec.file('metrics.jsonl'), '{"step": 2, "a"');
    expect(await RunRecord.readMetrics(dir)).toEqual([{ step: 1, a: 1 }]);
    appendFileSync(rec.file('metrics.jsonl'), '\n{"step": 3}\n');
    await expect(readJsonl(rec.file('metrics.jsonl'))).rejects.toThrow(/metrics\.jsonl:2: not valid JSON/);
  });

  it('configDifferences names each changed, added or removed key by its path', () => {
    const recorded = { arm: { config: { steps: 10, maxNewTokens: 64 } }, seeds: [0, 1], gone: true };
    const current = { arm: { config: { steps: 10, maxNewTokens: 128, extra: 'x' } }, seeds: [0, 2] };
    expect(configDifferences(recorded, current)).toEqual([
      'arm.config.maxNewTokens: 64 → 128',
      'arm.config.extra: absent → "x"',
      'seeds: [0,1] → [0,2]',
      'gone: true → absent',
    ]);
    expect(configDifferences(recorded, structuredClone(recorded))).toEqual([]);
    expect(configDifferences({ a: 1, b: 1, c: 1 }, { a: 2, b: 2, c: 2 }, { limit: 2 })).toEqual([
      'a: 1 → 2',
      'b: 1 → 2',
      '1 more',
    ]);
    expect(configDifferences(recorded, current, { acceptAdded: () => true })).toEqual([
      'arm.config.maxNewTokens: 64 → 128',
      'seeds: [0,1] → [0,2]',
      'gone: true → absent',
    ]);
  });

  it('refuses to overwrite a run, resumes one with the same config only', async () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'rec-')), 'run');
    await RunRecord.open(dir, { a: 1 });
    await expect(RunRecord.open(dir, { a: 1 })).rejects.toThrow(/already holds a run/);
    await expect(RunRecord.open(dir, { a: 2 }, { resume: true })).rejects.toThrow(/different config \(a: 1 → 2\)/);
    await RunRecord.open(dir, { a: 1 }, { resume: true });
  });

  it('resumes a run that lacks a setting added since, only at the value acceptAdded allows', async () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'rec-')), 'run');
    await RunRecord.open(dir, { arm: { config: { steps: 5 } } });
    const atDefault = (at: string, value: unknown) => at === 'arm.config.buckets' && value === 1;
    const withBuckets = (buckets: number) => ({ arm: { config: { steps: 5, buckets } } });
    await expect(RunRecord.open(dir, withBuckets(1), { resume: true })).rejects.toThrow(
      /different config \(arm\.config\.buckets: absent → 1\)/,
    );
    await expect(RunRecord.open(dir, withBuckets(8), { resume: true, acceptAdded: atDefault })).rejects.toThrow(
      /arm\.config\.buckets: absent → 8/,
    );
    await RunRecord.open(dir, withBuckets(1), { resume: true, acceptAdded: atDefault });
    // A changed setting the record has is still refused, whatever acceptAdded says.
    await expect(
      RunRecord.open(dir, { arm: { config: { steps: 6, buckets: 1 } } }, { resume: true, acceptAdded: () => true }),
    ).rejects.toThrow(/arm\.config\.steps: 5 → 6/);
  });

  it('says which directory cannot be written', async () => {
    if (process.getuid?.() === 0) {
      // root ignores permission bits; a path under a regular file cannot be created by anyone.
      const parent = mkdtempSync(join(tmpdir(), 'rec-'));
      appendFileSync(join(parent, 'file'), 'x');
      await expect(RunRecord.open(join(parent, 'file', 'run'), {})).rejects.toThrow(
        /cannot write to run directory .*file\/run/,
      );
      return;
    }
    const parent = mkdtempSync(join(tmpdir(), 'rec-'));
    chmodSync(parent, 0o500);
    await expect(RunRecord.open(join(parent, 'run'), {})).rejects.toThrow(/cannot write to run directory/);
  });
});
