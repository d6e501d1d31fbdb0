import { execFileSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { generateCountdown } from '../countdown/generate.js';
import { toCountdownJsonl } from '../countdown/load.js';
import { loadProsqa } from '../prosqa/load.js';
import { toSymbolicProsqa } from '../prosqa/symbolic.js';
import { collectStats } from './collect-stats.js';
import { runSolve } from './run-solve.js';

describe('solve command', () => {
  it('counts total, solvable and verified', async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'telepath-solve-'));
    const file = path.join(dir, 'cd.jsonl');
    const gen = generateCountdown({ n: 3, count: 40, seed: 4, split: 'val_target' });
    await fs.writeFile(file, toCountdownJsonl(gen) + '{"input":"1,1,1","output":"100"}\n');
    expect(await runSolve(file, 'sos', false)).toEqual({ total: 41, solvable: 40, verified: 40 });
    await fs.appendFile(file, '{"input":"1,1","output":"x"}\n');
    await expect(runSolve(file, 'sos', false)).rejects.toThrow(/cd\.jsonl:42 field "output"/);
    expect(await runSolve(file, 'all-numbers', true)).toEqual({ total: 41, solvable: 40, verified: 40, skipped: 1 });
  });

  it('runs from the command line with --help and a file', async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'telepath-solve-'));
    const file = path.join(dir, 'cd.jsonl');
    await fs.writeFile(file, '{"input":"14,34,28,4","output":"40"}\n');
    const cli = path.resolve(import.meta.dirname, 'solve.ts');
    const tsx = path.resolve(import.meta.dirname, '../../../../node_modules/.bin/tsx');
    expect(execFileSync(tsx, [cli, '--help'], { encoding: 'utf8' })).toMatch(
      /^Usage: npm run -w @telepath\/tasks solve -- FILE/,
    );
    expect(JSON.parse(execFileSync(tsx, [cli, file], { encoding: 'utf8' }))).toEqual({
      total: 1,
      solvable: 1,
      verified: 1,
    });
  });
});

describe('stats', () => {
  it('reports every split with its count and sha256 (small generated sizes)', async () => {
    const s = await collectStats({
      prosqaCount: 200,
      countdownN: [3],
      countdownSizes: { train: 30, val: 10, val_target: 10 },
    });
    const { gsm8k, prosqa, countdown } = s.tasks;
    expect([gsm8k.splits.train.count, gsm8k.splits.valid.count, gsm8k.splits.test.count]).toEqual([6973, 500, 1319]);
    expect(gsm8k.splits.test.sha256).toBe('3730d312f6e3440559ace48831e51066acaca737f6eabec99bccb9e4b3c39d14');
    expect(gsm8k.outOfDistribution['gsm-hard'].count).toBe(1319);
    expect(gsm8k.outOfDistribution.svamp.count).toBe(1000);
    expect([prosqa.splits.train.count, prosqa.splits.valid.count, prosqa.splits.test.count]).toEqual([200, 300, 500]);
    expect(prosqa.splits.train.generated).toEqual({ generator: 'prosqa', version: 1, seed: 0 });
    expect(prosqa.comparison.rows.length).toBeGreaterThan(40);
    expect(Object.keys(countdown.splits)).toEqual(['n3/train', 'n3/val', 'n3/val_target']);
    for (const split of Object.values(countdown.splits)) expect(split.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.parse(JSON.stringify(s))).toEqual(s);
  });
});

describe('prosqa-trace-stats', () => {
  it("diagnoses a run's samples from the command line, and names a samples file without its run config", async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'telepath-trace-stats-'));
    const file = path.join(dir, 'samples.jsonl');
    const examples = (await loadProsqa('test')).examples
      .slice(0, 2)
      .map((ex) => toSymbolicProsqa(ex, 'expansion-queue', 'headed'));
    const rows = examples.map((ex, i) => ({
      question: ex.question,
      gold: ex.answer,
      // as the lab records a generation: the trace, then the answer after ### (not a line of the trace)
      text: i === 0 ? `${ex.steps.join('\n')}\n### ${ex.answer}<eos>` : '',
    }));
    await fs.writeFile(file, rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
    const cli = path.resolve(import.meta.dirname, 'prosqa-trace-stats.ts');
    const tsx = path.resolve(import.meta.dirname, '../../../../node_modules/.bin/tsx');
    const run = () => execFileSync(tsx, [cli, file, '--json'], { encoding: 'utf8', stdio: 'pipe' });
    expect(run).toThrow(/no config\.resolved\.json beside it/);
    await fs.writeFile(
      path.join(dir, 'config.resolved.json'),
      JSON.stringify({ data: { rendering: 'headed', reasoning: 'expansion-queue' } }),
    );
    const summary = JSON.parse(run())[file];
    expect(summary).toMatchObject({ traces: 2, lines: examples[0].steps.length, wentOn: 0 });
    expect(summary.firstDifference).toMatchObject({ none: 1, '1': 1 });
    expect(summary.firstProblems).toEqual({ none: 1, empty: 1 });
  });
});
