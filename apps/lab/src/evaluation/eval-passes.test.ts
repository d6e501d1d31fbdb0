/**
 * Repeated evaluation of stochastic decoding (CoLaR: 5 passes, mean ± 95 % CI).
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { colar } from '@telepath/colar';
import { initBackend } from '@telepath/core';
import { beforeAll, describe, expect, it } from 'vitest';
import { evaluatePasses, passStats } from './eval-passes.js';
import { evaluate } from './evaluate.js';
import { validateExperiment } from '../experiment/experiment.js';
import { runExperiment } from '../running/run-experiment.js';
import { coinMethod, exactTask, MICRO_SETTINGS, numberedQuestions } from '../testing.js';

beforeAll(async () => {
  await initBackend('cpu', { quiet: true });
});

const coin = coinMethod();
const task = exactTask;
const examples = numberedQuestions(40);
const settings = { batchSize: 8, maxNewTokens: 4, temperature: 1, topP: 1, maxExamples: 0, controls: [] } as never;

describe('evaluation passes', () => {
  it('passStats: mean, sample sd and 1.96·sd/√n', () => {
    const s = passStats([0.2, 0.4, 0.3, 0.5, 0.1]);
    expect(s.mean).toBeCloseTo(0.3, 12);
    expect(s.sd).toBeCloseTo(Math.sqrt(0.025), 12);
    expect(s.ci95).toBeCloseTo((1.96 * Math.sqrt(0.025)) / Math.sqrt(5), 12);
    expect(passStats([0.4]).sd).toBe(0);
  });

  it('5 passes draw 5 different streams; accuracy is their mean; pass 1 is the single-pass evaluation', async () => {
    const state = coin.init({} as never, { passes: 5 });
    const five = await evaluatePasses(coin, { passes: 5 }, state, examples, task, settings, { seed: 3, quiet: true });
    const one = await evaluatePasses(coin, { passes: 1 }, state, examples, task, settings, { seed: 3, quiet: true });
    if (five === 'interrupted' || one === 'interrupted') throw new Error('interrupted');
    expect(five.passes!.n).toBe(5);
    expect(new Set(five.passes!.accuracies).size).toBeGreaterThan(1);
    expect(five.passes!.accuracies[0]).toBe(one.accuracy);
    expect(five.accuracy).toBeCloseTo(five.passes!.accuracies.reduce((a, b) => a + b, 0) / 5, 12);
    expect(five.samples.map(({ passScore: _, ...s }) => s)).toEqual(one.samples);
    expect(one.passes).toBeUndefined();
    expect(one.samples[0].passScore).toBeUndefined();
    // Each question's share of the passes right, by hand from the passes evaluated one by one.
    const byPass = [];
    for (let k = 0; k < 5; k++) {
      const r = await evaluate(coin, state, examples, task, settings, { seed: 3, quiet: true, pass: k });
      if (r === 'interrupted') throw new Error('interrupted');
      expect(r.accuracy).toBe(five.passes!.accuracies[k]);
      byPass.push(new Map(r.samples.map((s) => [s.id, s.correct])));
    }
    for (const s of five.samples) expect(s.passScore).toBeCloseTo(byPass.filter((m) => m.get(s.id)).length / 5, 12);
    expect(new Set(five.samples.map((s) => s.passScore)).size).toBeGreaterThan(2);
    const control = await evaluatePasses(coin, { passes: 5 }, state, examples, task, settings, {
      seed: 3,
      quiet: true,
      control: 'zero',
    });
    expect(control !== 'interrupted' && control.passes).toBeUndefined(); // controls: one pass
  });

  it('a CoLaR arm (sampled decoding) is evaluated over 5 passes and records their mean and spread; an RL arm records its GRPO groups', async () => {
    expect(colar.evalPasses!(colar.defaults)).toBe(5);
    expect(colar.evalPasses!({ ...colar.defaults, decoding: 'greedy' })).toBe(1);
    const runs = mkdtempSync(join(tmpdir(), 'lab-passes-'));
    const exp = validateExperiment(
      {
        name: 'passes',
        ...MICRO_SETTINGS,
        arms: [
          { name: 'cot', method: 'cot', config: { variant: 'cot', steps: 4 } },
          {
            name: 'colar',
            method: 'colar',
            initFrom: 'cot',
            config: { sftSteps: 2, compressionFactor: 2, maxLatents: 6 },
          },
          {
            name: 'colar-rl',
            method: 'colar',
            initFrom: 'colar',
            config: {
              sftSteps: 0,
              rlSteps: 2,
              compressionFactor: 2,
              maxLatents: 6,
              groupSize: 2,
              rolloutQuestions: 2,
              rlMinibatch: 2,
              evalPasses: 2,
            },
          },
        ],
      },
      'passes.json',
    );
    await runExperiment(exp, { runsDir: runs, quiet: true, log: () => {} });
    const summary = JSON.parse(readFileSync(join(runs, 'passes', 'colar', 's0', 'summary.json'), 'utf8'));
    expect(summary.passes.n).toBe(5);
    expect(summary.passes.accuracies).toHaveLength(5);
    expect(summary.accuracy).toBeCloseTo(summary.passes.mean, 12);
    // The RL arm records its GRPO groups: 2 steps of minibatch 2 = one buffer of 2 questions × G 2.
    const rl = JSON.parse(readFileSync(join(runs, 'passes', 'colar-rl', 's0', 'summary.json'), 'utf8'));
    expect(rl.passes.n).toBe(2);
    expect(rl.trainingStats.rlGroups).toBe(2);
    expect(rl.trainingStats.rlGroupsWithSignal).toBeGreaterThanOrEqual(0);
    expect(rl.trainingStats.rlGroupsWithSignal).toBeLessThanOrEqual(2);
    expect(summary.trainingStats).toBeUndefined(); // no RL phase
    // Every row says where its weights start: the root of the initFrom chain.
    expect([summary.startsFrom, rl.startsFrom]).toEqual(['cot', 'cot']);
    expect(readFileSync(join(runs, 'passes', 'table.md'), 'utf8')).toContain('|starts from|');
    const cot = JSON.parse(readFileSync(join(runs, 'passes', 'cot', 's0', 'summary.json'), 'utf8'));
    expect(cot.passes).toBeUndefined();
    expect(cot.startsFrom).toBe('scratch');
    // A record written before passScore existed gains it when read back (every pass evaluated again
    // from final.ckpt, reproducing the recorded accuracies); one whose passes do not reproduce keeps its samples.
    const samplesPath = join(runs, 'passes', 'colar', 's0', 'samples.jsonl');
    const lines = () =>
      readFileSync(samplesPath, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
    const written = lines();
    expect(written.every((l) => typeof l.passScore === 'number')).toBe(true);
    writeFileSync(samplesPath, written.map(({ passScore: _, ...l }) => JSON.stringify(l)).join('\n') + '\n');
    await runExperiment(exp, { runsDir: runs, quiet: true, log: () => {} });
    expect(lines()).toEqual(written);
    const upgraded = JSON.parse(readFileSync(join(runs, 'passes', 'colar', 's0', 'summary.json'), 'utf8'));
    expect(upgraded.upgraded.at(-1)).toMatch(/^passScore in samples\.jsonl added from the record on /);
    writeFileSync(samplesPath, written.map(({ passScore: _, ...l }) => JSON.stringify(l)).join('\n') + '\n');
    const wrongPass = {
      ...upgraded,
      passes: {
        ...upgraded.passes,
        accuracies: upgraded.passes.accuracies.map((a: number) => (a > 0.5 ? a - 0.25 : a + 0.25)),
      },
    };
    delete wrongPass.upgraded;
    writeFileSync(join(runs, 'passes', 'colar', 's0', 'summary.json'), JSON.stringify(wrongPass));
    const logged: string[] = [];
    await runExperiment(exp, { runsDir: runs, quiet: true, log: (l) => logged.push(l) });
    expect(logged.join('\n')).toMatch(/colar s0: pass 1 gave \d+ right on evaluating again against \d+ recorded/);
    expect(lines().every((l) => l.passScore === undefined)).toBe(true);
    const refused = JSON.parse(readFileSync(join(runs, 'passes', 'colar', 's0', 'summary.json'), 'utf8'));
    expect(refused.passScoresUnreproduced).toBe(true);
  }, 120_000);
});
