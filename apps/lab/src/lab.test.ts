/**
 * End to end on a micro experiment (tiny model, a few steps, cpu backend): records, table, charts,
 * HTML; report rebuilt from records alone; resume after an interrupted run; bad inputs.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { initBackend, readLatentTrace } from '@telepath/core';
import { beforeAll, describe, expect, it } from 'vitest';
import { validateExperiment } from './experiment/experiment.js';
import { readSummaries, writeReport } from './reports/report.js';
import { runExperiment } from './running/run-experiment.js';
import { aggregate, tableMarkdown } from './reports/table.js';
import { metricLines, MICRO_SETTINGS } from './testing.js';

beforeAll(async () => {
  await initBackend('cpu', { quiet: true });
});

const MICRO = {
  name: 'micro',
  ...MICRO_SETTINGS,
  arms: [
    { name: 'no-cot', method: 'cot', config: { variant: 'no-cot', steps: 4 } },
    { name: 'cot', method: 'cot', config: { variant: 'cot', steps: 4 } },
  ],
};

const quiet = { quiet: true, log: () => {} };

/** The micro CoT arm's metrics under `runs`. */
const cotMetrics = (runs: string) => metricLines(runs, 'micro', 'cot', 's0');

/** Runs the micro CoT arm alone into `runsDir`, interrupted at the `polls`-th stop poll; whether it stopped. */
async function cutCot(runsDir: string, polls: number): Promise<boolean> {
  const exp = validateExperiment({ ...MICRO, arms: [MICRO.arms[1]] }, 'micro.json');
  let n = 0;
  return (await runExperiment(exp, { runsDir, shouldStop: () => ++n >= polls, ...quiet })).interrupted;
}

describe('telepath run on a micro experiment', () => {
  const runs = mkdtempSync(join(tmpdir(), 'lab-'));
  let first: Awaited<ReturnType<typeof runExperiment>>;

  it('trains and evaluates two arms, writing records, table, charts and HTML', async () => {
    first = await runExperiment(validateExperiment(MICRO, 'micro.json'), { runsDir: runs, ...quiet });
    expect(first.interrupted).toBe(false);
    expect(first.results.map((r) => r.arm)).toEqual(['no-cot', 'cot']);
    for (const arm of ['no-cot', 'cot']) {
      const dir = join(runs, 'micro', arm, 's0');
      for (const f of [
        'config.resolved.json',
        'env.json',
        'metrics.jsonl',
        'samples.jsonl',
        'summary.json',
        'tokenizer.json',
        'model.json',
        'sft.ckpt',
      ])
        expect(existsSync(join(dir, f)), `${arm}/${f}`).toBe(true);
      const summary = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8'));
      expect(summary.total).toBe(6);
      expect(summary.accuracy).toBeGreaterThanOrEqual(0);
      expect(readFileSync(join(dir, 'samples.jsonl'), 'utf8').trim().split('\n')).toHaveLength(6);
    }
    expect(first.results[1].reasoningLength).toBeGreaterThan(0); // CoT generates steps before ###
    expect(first.results[0].reasoningLength).toBe(0);
    expect(first.results[0].validReasoning).toBeUndefined(); // No-CoT writes no steps to check
    expect(first.results[1].validReasoning).toBeGreaterThanOrEqual(0); // Countdown checks CoT's steps
    expect(Object.values(first.results[1].reasoningVerdicts ?? {}).reduce((a, b) => a + b, 0)).toBe(6);
    expect(readFileSync(join(runs, 'micro', 'table.md'), 'utf8')).toContain('|cot|');
    const files = await writeReport(first.results, join(runs, 'micro', 'report'));
    for (const f of files) expect(existsSync(f), f).toBe(true);
    const svg = readFileSync(join(runs, 'micro', 'report', 'accuracy.svg'), 'utf8');
    expect(svg).toContain('<svg');
    expect(svg).toContain('no-cot');
    const png = readFileSync(join(runs, 'micro', 'report', 'accuracy.png'));
    expect(png.subarray(1, 4).toString()).toBe('PNG');
    const html = readFileSync(join(runs, 'micro', 'report', 'index.html'), 'utf8');
    expect(html).toContain('id="chart-accuracy"');
    expect(html).not.toMatch(/<script|src="http/);
  });

  it('report rebuilds identical tables from the records alone; finished arms are skipped', async () => {
    const fromRecords = await readSummaries(join(runs, 'micro'));
    expect(tableMarkdown(aggregate(fromRecords))).toBe(tableMarkdown(aggregate(first.results)));
    const again = await runExperiment(validateExperiment(MICRO, 'micro.json'), { runsDir: runs, ...quiet });
    expect(again.results).toEqual(first.results);
  });

  it('reads a finished arm recorded with another config, and says which keys differ', async () => {
    const lines: string[] = [];
    const same = await runExperiment(validateExperiment(MICRO, 'micro.json'), {
      runsDir: runs,
      quiet: true,
      log: (l) => lines.push(l),
    });
    expect(lines.filter((l) => l.includes('another config'))).toEqual([]);
    const edited = {
      ...MICRO,
      eval: { ...MICRO.eval, batchSize: 2 },
      arms: [MICRO.arms[0], { ...MICRO.arms[1], config: { ...MICRO.arms[1].config, maxNewTokens: 30 } }],
    };
    const again = await runExperiment(validateExperiment(edited, 'micro.json'), {
      runsDir: runs,
      quiet: true,
      log: (l) => lines.push(l),
    });
    expect(again.results).toEqual(same.results); // the records, not a retraining
    const notices = lines.filter((l) => l.includes('another config'));
    expect(notices).toHaveLength(2);
    expect(notices[0]).toMatch(/no-cot s0: .*\(eval\.batchSize: 3 → 2\).*--force retrains it/);
    expect(notices[1]).toMatch(/cot s0: .*\(eval\.batchSize: 3 → 2; arm\.config\.maxNewTokens: 64 → 30\)/);
  });

  it('resumes an interrupted run and ends with the same losses and results as an uninterrupted one', async () => {
    const other = mkdtempSync(join(tmpdir(), 'lab-resume-'));
    const exp = validateExperiment({ ...MICRO, arms: [MICRO.arms[1]] }, 'micro.json');
    expect(await cutCot(other, 3)).toBe(true);
    const dir = join(other, 'micro', 'cot', 's0');
    expect(existsSync(join(dir, 'summary.json'))).toBe(false);
    const resumed = await runExperiment(exp, { runsDir: other, ...quiet });
    expect(resumed.interrupted).toBe(false);
    const losses = (root: string) => cotMetrics(root).flatMap((m) => ('sft/loss' in m ? [m['sft/loss']] : []));
    const a = losses(runs);
    const b = losses(other);
    expect(b).toHaveLength(a.length);
    b.forEach((x, i) => expect(Math.abs(x - a[i])).toBeLessThan(1e-5));
    const {
      trainSeconds: _t1,
      msPerExample: _m1,
      finishedAt: _f1,
      ...r1
    } = resumed.results[0] as (typeof resumed.results)[0] & { finishedAt: string };
    const {
      trainSeconds: _t2,
      msPerExample: _m2,
      finishedAt: _f2,
      armIndex: _a2,
      ...r2
    } = first.results[1] as (typeof first.results)[1] & { finishedAt: string };
    delete (r1 as { armIndex?: number }).armIndex;
    expect(r1).toEqual(r2);
  });

  it("draws the validation curve at the same steps after a resume: no extra point at the resumed run's first log", async () => {
    const other = mkdtempSync(join(tmpdir(), 'lab-resume-curve-'));
    expect(await cutCot(other, 2)).toBe(true);
    expect(await cutCot(other, Infinity)).toBe(false); // resumed to the end
    const curveSteps = (root: string) => cotMetrics(root).flatMap((m) => ('sft/val_acc' in m ? [m.step] : []));
    expect(curveSteps(runs)).toEqual([1, 2, 4]); // curveEvery 2: the first log, then every 2 steps
    expect(curveSteps(other)).toEqual(curveSteps(runs));
  });

  it("resumes a run recorded before a setting existed at that setting's default, and refuses another value", async () => {
    const other = mkdtempSync(join(tmpdir(), 'lab-added-'));
    const exp = validateExperiment({ ...MICRO, arms: [MICRO.arms[1]] }, 'micro.json');
    expect(await cutCot(other, 3)).toBe(true);
    // The record as a run started before `lengthBuckets` existed would have written it.
    const file = join(other, 'micro', 'cot', 's0', 'config.resolved.json');
    const recorded = JSON.parse(readFileSync(file, 'utf8'));
    expect(recorded.arm.config.lengthBuckets).toBe(1);
    delete recorded.arm.config.lengthBuckets;
    writeFileSync(file, JSON.stringify(recorded, null, 2));
    const buckets = (n: number) =>
      validateExperiment(
        { ...MICRO, arms: [{ ...MICRO.arms[1], config: { ...MICRO.arms[1].config, lengthBuckets: n } }] },
        'micro.json',
      );
    await expect(runExperiment(buckets(2), { runsDir: other, ...quiet })).rejects.toThrow(
      /arm\.config\.lengthBuckets: absent → 2\); refusing to resume it/,
    );
    const resumed = await runExperiment(exp, { runsDir: other, ...quiet });
    expect(resumed.interrupted).toBe(false);
    expect(resumed.results).toHaveLength(1);
  });

  it('telepath eval re-evaluates a trained arm on a Countdown JSONL file', async () => {
    const { evalCommand, evalResultBase } = await import('./commands/eval.js');
    const file = join(runs, 'extra.jsonl');
    writeFileSync(file, '{"input": "3,5,7", "output": "15"}\n{"input": "2,4,6", "output": "12"}\n');
    expect(await evalCommand([join(runs, 'micro', 'cot', 's0'), '--data', file, '--backend', 'cpu'])).toBe(0);
    const out = JSON.parse(readFileSync(join(runs, 'micro', 'cot', 's0', `${evalResultBase(file)}.json`), 'utf8'));
    expect(out.total).toBe(2);
    expect(out.accuracy).toBeGreaterThanOrEqual(0);
    await expect(evalCommand([join(runs, 'micro'), '--data', file])).rejects.toThrow(/not a run directory/);
  });

  it('telepath eval --checkpoint evaluates a run that has not finished with its phase checkpoint', async () => {
    const { evalCommand, evalResultBase } = await import('./commands/eval.js');
    const { cpSync } = await import('node:fs');
    const file = join(runs, 'extra.jsonl'); // written by the test above, evaluated with final.ckpt
    const unfinished = join(mkdtempSync(join(tmpdir(), 'lab-unfinished-')), 'micro', 'cot', 's0');
    cpSync(join(runs, 'micro', 'cot', 's0'), unfinished, { recursive: true });
    for (const f of ['summary.json', 'final.ckpt']) rmSync(join(unfinished, f));
    await expect(evalCommand([unfinished, '--data', file, '--backend', 'cpu'])).rejects.toThrow(/has not finished/);
    await expect(
      evalCommand([unfinished, '--data', file, '--checkpoint', 'stage2', '--backend', 'cpu']),
    ).rejects.toThrow(/no phase "stage2" \(its phases: sft\)/);
    expect(await evalCommand([unfinished, '--data', file, '--checkpoint', 'sft', '--backend', 'cpu'])).toBe(0);
    const out = JSON.parse(readFileSync(join(unfinished, `${evalResultBase(file)}.sft-step4.json`), 'utf8'));
    expect(out.checkpoint).toEqual({ phase: 'sft', step: 4 });
    const predictions = (dir: string, base: string) =>
      readFileSync(join(dir, `${base}.samples.jsonl`), 'utf8')
        .trim()
        .split('\n')
        .map((l) => (JSON.parse(l) as { prediction: string }).prediction);
    // The last phase's checkpoint holds the weights final.ckpt holds: the same answers.
    expect(predictions(unfinished, `${evalResultBase(file)}.sft-step4`)).toEqual(
      predictions(join(runs, 'micro', 'cot', 's0'), evalResultBase(file)),
    );
    rmSync(join(unfinished, 'sft.ckpt'));
    await expect(evalCommand([unfinished, '--data', file, '--checkpoint', 'sft', '--backend', 'cpu'])).rejects.toThrow(
      /no sft\.ckpt: phase sft has not written a checkpoint yet/,
    );
  });

  it('telepath eval rebuilds an arm that started from another (initFrom) from its own record, wherever the record is', async () => {
    const { evalCommand, evalResultBase } = await import('./commands/eval.js');
    const { cpSync } = await import('node:fs');
    const exp = validateExperiment(
      {
        ...MICRO,
        arms: [
          MICRO.arms[0],
          {
            name: 'liu',
            method: 'coprocessor',
            initFrom: 'no-cot',
            config: { variant: 'liu', latentTokens: 1, steps: 2 },
          },
        ],
      },
      'micro.json',
    );
    await runExperiment(exp, { runsDir: runs, ...quiet });
    // Moved away from the run of its Base (no-cot): its final.ckpt holds the frozen Base too.
    const moved = join(mkdtempSync(join(tmpdir(), 'lab-moved-')), 'exp', 'liu', 's0');
    cpSync(join(runs, 'micro', 'liu', 's0'), moved, { recursive: true });
    const samples = readFileSync(join(moved, 'samples.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { question: string; gold: string; prediction: string });
    const file = join(runs, 'test-again.jsonl');
    const asInput = (q: string) => {
      const m = /^Make (\d+) from ([\d ]+)\.$/.exec(q)!;
      return { input: m[2].split(' ').join(','), output: m[1] };
    };
    writeFileSync(file, samples.map((s) => JSON.stringify(asInput(s.question))).join('\n') + '\n');
    expect(await evalCommand([moved, '--data', file, '--backend', 'cpu'])).toBe(0);
    const again = readFileSync(join(moved, `${evalResultBase(file)}.samples.jsonl`), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { prediction: string });
    expect(again.map((s) => s.prediction)).toEqual(samples.map((s) => s.prediction));
  });

  it("initialises an arm from an earlier arm's trained LM (initFrom)", async () => {
    const exp = validateExperiment(
      {
        ...MICRO,
        arms: [
          MICRO.arms[1],
          { name: 'cot-again', method: 'cot', initFrom: 'cot', config: { variant: 'cot', steps: 0 } },
        ],
      },
      'micro.json',
    );
    const res = await runExperiment(exp, { runsDir: runs, ...quiet });
    // Zero further steps from the CoT weights: the same answers as the CoT arm itself.
    const samples = (arm: string) => readFileSync(join(runs, 'micro', arm, 's0', 'samples.jsonl'), 'utf8');
    expect(samples('cot-again')).toBe(samples('cot'));
    expect(res.results[1].accuracy).toBe(res.results[0].accuracy);
    expect(() =>
      validateExperiment({ ...MICRO, arms: [{ ...MICRO.arms[0], initFrom: 'cot' }, MICRO.arms[1]] }, 'micro.json'),
    ).toThrow(/"initFrom": "cot" must name an earlier arm/);
  });

  it("initFrom an arm of the same method also restores the method's own variables (soft tokens)", async () => {
    const soft = {
      name: 'soft',
      method: 'soft-embedding',
      config: { variant: 'soft-tokens', latentTokens: 2, steps: 3 },
    };
    const again = {
      name: 'soft-again',
      method: 'soft-embedding',
      initFrom: 'soft',
      config: { variant: 'soft-tokens', latentTokens: 2, steps: 0 },
    };
    const fresh = {
      name: 'soft-fresh',
      method: 'soft-embedding',
      initFrom: 'cot',
      config: { variant: 'soft-tokens', latentTokens: 2, steps: 0 },
    };
    const exp = validateExperiment(
      { ...MICRO, eval: { ...MICRO.eval, controls: [] }, arms: [MICRO.arms[1], soft, again, fresh] },
      'micro.json',
    );
    await runExperiment(exp, { runsDir: runs, ...quiet });
    const samples = (arm: string) => readFileSync(join(runs, 'micro', arm, 's0', 'samples.jsonl'), 'utf8');
    const latents = async (arm: string) =>
      (await readLatentTrace(join(runs, 'micro', arm, 's0', 'latents.bin'))).slots.map((sl) => [...sl.vectors]);
    expect(samples('soft-again')).toBe(samples('soft'));
    expect(await latents('soft-again')).toEqual(await latents('soft')); // same soft tokens → same latent states
    expect(await latents('soft-fresh')).not.toEqual(await latents('soft')); // from CoT: only the LM, fresh soft tokens
  });

  it("initFrom carries the frozen weights too (CoLaR's SFT does not train the embeddings)", async () => {
    const colar = {
      name: 'colar',
      method: 'colar',
      initFrom: 'cot',
      config: { sftSteps: 2, compressionFactor: 2, maxLatents: 8 },
    };
    const again = {
      name: 'colar-again',
      method: 'colar',
      initFrom: 'colar',
      config: { sftSteps: 0, compressionFactor: 2, maxLatents: 8 },
    };
    const exp = validateExperiment(
      { ...MICRO, eval: { ...MICRO.eval, controls: [] }, arms: [MICRO.arms[1], colar, again] },
      'micro.json',
    );
    await runExperiment(exp, { runsDir: runs, ...quiet });
    const samples = (arm: string) => readFileSync(join(runs, 'micro', arm, 's0', 'samples.jsonl'), 'utf8');
    expect(samples('colar-again')).toBe(samples('colar'));
    expect(existsSync(join(runs, 'micro', 'colar', 's0', 'final.ckpt'))).toBe(true);
  });

  it('an arm with its own lm settings trains a model of that size (a parameter-matched control)', async () => {
    const deep = { name: 'no-cot-deep', method: 'cot', lm: { layers: 2 }, config: { variant: 'no-cot', steps: 2 } };
    const exp = validateExperiment({ ...MICRO, arms: [MICRO.arms[0], deep] }, 'micro.json');
    const { results } = await runExperiment(exp, { runsDir: runs, ...quiet });
    const model = JSON.parse(readFileSync(join(runs, 'micro', 'no-cot-deep', 's0', 'model.json'), 'utf8'));
    expect(model.layers).toBe(2);
    expect(results[1].params).toBeGreaterThan(results[0].params);
  });

  it('gives clear errors for an unwritable run directory and a corrupt record', async () => {
    const blocker = join(mkdtempSync(join(tmpdir(), 'lab-bad-')), 'file');
    writeFileSync(blocker, 'not a directory');
    await expect(
      runExperiment(validateExperiment(MICRO, 'micro.json'), { runsDir: blocker, ...quiet }),
    ).rejects.toThrow(/^micro no-cot s0: cannot write to run directory .*file\/micro\/no-cot\/s0/);
    const corrupt = mkdtempSync(join(tmpdir(), 'lab-corrupt-'));
    mkdirSync(join(corrupt, 'micro', 'cot', 's0'), { recursive: true });
    writeFileSync(join(corrupt, 'micro', 'cot', 's0', 'summary.json'), '{"arm": ');
    await expect(readSummaries(join(corrupt, 'micro'))).rejects.toThrow(/micro\/cot\/s0\/summary\.json/);
    rmSync(corrupt, { recursive: true });
  });
});
