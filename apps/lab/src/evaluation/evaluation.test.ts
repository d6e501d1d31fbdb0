/**
 * Evaluation that tells arms apart, end to end on the micro experiment: heuristic arms, both
 * Countdown splits, paired intervals against the baselines (table, report, --json), diagnostics,
 * training curves rebuilt identically from the records, samples on the page, and a report of
 * records written before any of this gaining the columns they allow without retraining.
 */
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { initBackend, Rng } from '@telepath/core';
import { countdownTask, taskHeuristics } from '@telepath/tasks';
import { beforeAll, describe, expect, it } from 'vitest';
import { curveSpec, readCurves } from '../reports/curves.js';
import { loadTaskData } from '../experiment/data.js';
import { validateExperiment } from '../experiment/experiment.js';
import { reportCommand } from '../commands/report.js';
import { compareArms, readSummaries } from '../reports/report.js';
import { runExperiment } from '../running/run-experiment.js';
import { resultsJson } from '../reports/table.js';
import { metricLines, MICRO_SETTINGS } from '../testing.js';

beforeAll(async () => {
  await initBackend('cpu', { quiet: true });
});

const EXP = {
  name: 'eval-micro',
  ...MICRO_SETTINGS,
  compareTo: ['no-cot'],
  arms: [
    { name: 'no-cot', method: 'cot', config: { variant: 'no-cot', steps: 4 } },
    { name: 'cot', method: 'cot', config: { variant: 'cot', steps: 4 } },
    { name: 'sum', method: 'heuristic', config: { rule: 'sum' } },
    { name: 'greedy', method: 'heuristic', config: { rule: 'greedy' } },
  ],
};
const quiet = { quiet: true, log: () => {} };

describe('evaluation that tells arms apart', () => {
  const runs = mkdtempSync(join(tmpdir(), 'lab-eval-'));
  let run: Awaited<ReturnType<typeof runExperiment>>;

  it('runs heuristic arms without training, scoring them as the task does, on both Countdown splits', async () => {
    run = await runExperiment(validateExperiment(EXP, 'eval-micro.json'), { runsDir: runs, ...quiet });
    const data = await loadTaskData('countdown', validateExperiment(EXP, 'x.json').data);
    const greedy = run.results.find((r) => r.arm === 'greedy')!;
    const expected = data.test.filter((ex) =>
      countdownTask.isCorrect(ex, `### ${taskHeuristics('countdown').greedy.answer(ex, new Rng(0)).answer}`),
    ).length;
    expect(greedy).toMatchObject({ method: 'heuristic', params: 0, trainSeconds: 0, total: 6, correct: expected });
    expect(existsSync(join(runs, 'eval-micro', 'greedy', 's0', 'model.json'))).toBe(false);
    for (const r of run.results) {
      expect(r.tests?.val_target?.total, r.arm).toBe(6);
      expect(existsSync(join(runs, 'eval-micro', r.arm, 's0', 'samples.val_target.jsonl')), r.arm).toBe(true);
    }
    // The sum heuristic writes a sound chain of additions whose last number is its answer's value.
    const sum = run.results.find((r) => r.arm === 'sum')!.diagnostics!;
    expect(sum.withChain).toBe(6);
    expect(sum.agrees).toBe(6);
    expect(sum.hitCap).toBe(0);
    expect((sum.chains.sound ?? 0) + (sum.chains['misses-target'] ?? 0)).toBe(6);
    // CoT's diagnostics count every sample, and a generation without <eos> counts as cut off by the cap.
    const cot = run.results.find((r) => r.arm === 'cot')!.diagnostics!;
    expect(cot.total).toBe(6);
    const samples = readFileSync(join(runs, 'eval-micro', 'cot', 's0', 'samples.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map(
        (l) =>
          JSON.parse(l) as { hitCap: boolean; reasoningCapped: boolean; id: string; correct: boolean; text: string },
      );
    expect(cot.hitCap).toBe(samples.filter((s) => s.hitCap).length);
    // A chain cut before its answer: no ### and no <eos>.
    expect(cot.reasoningCapped).toBe(samples.filter((s) => !s.text.includes('###') && s.hitCap).length);
    expect(samples.every((s) => typeof s.reasoningCapped === 'boolean')).toBe(true);
    expect(sum.reasoningCapped).toBe(0);
    expect(samples.every((s) => typeof s.id === 'string' && typeof s.correct === 'boolean')).toBe(true);
  });

  it('every row carries n and its paired differences from the baselines, in the table and in --json', () => {
    const byArm = new Map(run.rows.map((r) => [r.arm, r]));
    expect([...byArm.keys()]).toEqual([
      'no-cot',
      'no-cot [val_target]',
      'cot',
      'cot [val_target]',
      'sum',
      'sum [val_target]',
      'greedy',
      'greedy [val_target]',
    ]);
    expect(byArm.get('no-cot')!.paired).toEqual([{ baseline: 'no-cot', diff: 0, lo: 0, hi: 0, questions: 6 }]);
    const g = byArm.get('greedy')!;
    expect(g.spread).toBe('bootstrap');
    expect(g.paired[0].diff).toBeCloseTo(g.accuracy - byArm.get('no-cot')!.accuracy, 12);
    expect(g.paired[0].lo).toBeLessThanOrEqual(g.paired[0].diff);
    expect(byArm.get('cot [val_target]')!.paired[0].baseline).toBe('no-cot');
    const json = resultsJson('eval-micro', run.results, run.rows) as {
      arms: { arm: string; method: string; n: number; paired: object[] }[];
    };
    const greedy = json.arms.find((a) => a.arm === 'greedy')!;
    expect(greedy.method).toBe('heuristic');
    expect(greedy.n).toBe(6);
    expect(greedy.paired).toEqual([
      { baseline: 'no-cot', diff: g.paired[0].diff, lo: g.paired[0].lo, hi: g.paired[0].hi },
    ]);
    const table = readFileSync(join(runs, 'eval-micro', 'table.md'), 'utf8');
    expect(table).toContain('Δ no-cot (pp, 95 %)');
    expect(table).toContain('+0.0 [+0.0, +0.0]');
  });

  it('logs validation accuracy during training, and the report draws the curves, rebuilt identically from the records', async () => {
    const metrics = metricLines(runs, 'eval-micro', 'cot', 's0');
    expect(metrics.filter((m) => 'sft/val_acc' in m).map((m) => m.step)).toEqual([1, 2, 4]);
    const results = await readSummaries(join(runs, 'eval-micro'));
    const a = await readCurves(runs, results);
    expect(a.filter((p) => p.arm === 'cot' && p.metric === 'loss')).toHaveLength(4);
    expect(JSON.stringify(curveSpec(await readCurves(runs, results), 'val_acc'))).toBe(
      JSON.stringify(curveSpec(a, 'val_acc')),
    );
    expect(await reportCommand(['eval-micro', '--runs', runs, '--quiet'])).toBe(0);
    const out = join(runs, 'eval-micro', 'report');
    const [html, table] = [readFileSync(join(out, 'index.html'), 'utf8'), readFileSync(join(out, 'table.md'), 'utf8')];
    expect(html).toContain('id="chart-loss"');
    expect(html).toContain('id="chart-val-acc"');
    expect(html).toContain('<h2>Samples</h2>');
    expect(html).toContain('bootstrap draws that resample the questions');
    expect(table).toContain('Δ no-cot'); // compareTo recorded by the run
    const svg = readFileSync(join(out, 'val-acc.svg'), 'utf8');
    expect(svg).toContain('<svg');
    expect(await reportCommand(['eval-micro', '--runs', runs, '--quiet'])).toBe(0);
    expect(readFileSync(join(out, 'table.md'), 'utf8')).toBe(table);
    expect(readFileSync(join(out, 'val-acc.svg'), 'utf8')).toBe(svg);
  });

  it("the curve's validation passes leave training unchanged: the same losses and answers without them", async () => {
    const other = mkdtempSync(join(tmpdir(), 'lab-nocurve-'));
    const plain = { ...EXP, compareTo: [], eval: { ...EXP.eval, curveEvery: 0 }, arms: [EXP.arms[1]] };
    const res = await runExperiment(validateExperiment(plain, 'eval-micro.json'), { runsDir: other, ...quiet });
    const losses = (root: string) =>
      metricLines(root, 'eval-micro', 'cot', 's0').flatMap((m) => ('sft/loss' in m ? [m['sft/loss']] : []));
    expect(losses(other)).toEqual(losses(runs));
    expect(readFileSync(join(other, 'eval-micro', 'cot', 's0', 'metrics.jsonl'), 'utf8')).not.toContain('val_acc');
    expect(res.results[0].accuracy).toBe(run.results.find((r) => r.arm === 'cot')!.accuracy);
    expect(readFileSync(join(other, 'eval-micro', 'cot', 's0', 'samples.jsonl'), 'utf8')).toBe(
      readFileSync(join(runs, 'eval-micro', 'cot', 's0', 'samples.jsonl'), 'utf8'),
    );
  });

  it('telepath run adds the diagnostics and the other split to a record that predates them, from its samples and final weights, equal to a fresh evaluation', async () => {
    const dir = join(runs, 'eval-micro', 'cot', 's0');
    const fresh = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8'));
    const freshSamples = readFileSync(join(dir, 'samples.val_target.jsonl'), 'utf8');
    const { diagnostics: _d, tests: _t, ...old } = fresh;
    writeFileSync(join(dir, 'summary.json'), JSON.stringify(old));
    rmSync(join(dir, 'samples.val_target.jsonl'));
    const lines: string[] = [];
    const again = await runExperiment(validateExperiment(EXP, 'eval-micro.json'), {
      runsDir: runs,
      quiet: true,
      log: (l) => lines.push(l),
    });
    const cot = again.results.find((r) => r.arm === 'cot')!;
    expect(cot.diagnostics).toEqual(fresh.diagnostics);
    expect(cot.tests).toEqual(fresh.tests);
    expect(readFileSync(join(dir, 'samples.val_target.jsonl'), 'utf8')).toBe(freshSamples);
    expect(cot.upgraded).toEqual([expect.stringMatching(/^diagnostics, tests\.val_target added from the record on /)]);
    expect(lines.filter((l) => l.includes('without retraining'))).toHaveLength(1);
    expect(JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')).accuracy).toBe(fresh.accuracy);
  });

  it('a report of records written before these columns existed gains the paired intervals and chain breakdown without retraining', async () => {
    const old = mkdtempSync(join(tmpdir(), 'lab-old-'));
    for (const arm of ['no-cot', 'cot']) {
      const dir = join(old, 'old', arm, 's0');
      cpSync(join(runs, 'eval-micro', arm, 's0'), dir, { recursive: true });
      // What an old record held: no diagnostics, no further test sets, no curve points, no hitCap or diagnosis per sample.
      const summary = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8'));
      delete summary.diagnostics;
      delete summary.tests;
      writeFileSync(join(dir, 'summary.json'), JSON.stringify({ ...summary, experiment: 'old' }));
      rmSync(join(dir, 'samples.val_target.jsonl'));
      const lines = readFileSync(join(dir, 'metrics.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .filter((l) => !l.includes('val_acc'));
      writeFileSync(join(dir, 'metrics.jsonl'), lines.join('\n') + '\n');
      const samples = readFileSync(join(dir, 'samples.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((l) => {
          const { hitCap: _h, diagnosis: _d, ...s } = JSON.parse(l);
          return JSON.stringify(s);
        });
      writeFileSync(join(dir, 'samples.jsonl'), samples.join('\n') + '\n');
    }
    const results = await readSummaries(join(old, 'old'));
    const rows = await compareArms(results, old, ['no-cot']);
    const cot = rows.find((r) => r.arm === 'cot')!;
    expect(cot.spread).toBe('bootstrap');
    expect(cot.paired).toHaveLength(1);
    expect(cot.diagnostics!.agrees).toBeNull(); // not recorded then
    expect(Object.values(cot.diagnostics!.chains).reduce((a, b) => a + b, 0)).toBe(6); // from the old reasoningVerdicts
    expect(await reportCommand(['old', '--runs', old, '--quiet', '--compare', 'no-cot'])).toBe(0);
    const html = readFileSync(join(old, 'old', 'report', 'index.html'), 'utf8');
    expect(html).toContain('Δ no-cot');
    expect(html).toContain('id="chart-loss"');
    expect(html).not.toContain('id="chart-val-acc"');
    // Without per-question samples: binomial errors, marked, and no paired column.
    rmSync(join(old, 'old', 'cot', 's0', 'samples.jsonl'));
    const bare = (await compareArms(await readSummaries(join(old, 'old')), old, ['no-cot'])).find(
      (r) => r.arm === 'cot',
    )!;
    expect(bare.spread).toBe('binomial');
    expect(bare.paired).toEqual([]);
  });
});

it("a heuristic arm answers the test questions its own data settings choose (the other arms' testCount)", async () => {
  const runs = mkdtempSync(join(tmpdir(), 'lab-eval-heuristic-data-'));
  const exp = {
    ...EXP,
    name: 'heuristic-data',
    compareTo: [],
    arms: [{ name: 'greedy', method: 'heuristic', data: { testCount: 9 }, config: { rule: 'greedy' } }],
  };
  const res = await runExperiment(validateExperiment(exp, 'heuristic-data.json'), { runsDir: runs, ...quiet });
  expect(res.results[0].total).toBe(9);
});
