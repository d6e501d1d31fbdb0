/**
 * `telepath eval` rebuilds an arm from a randomly initialised LM and restores final.ckpt over it.
 * Values a method measures at init from the LM it starts from (CoLaR's embedding std, the
 * coprocessor's latent scale) must come from the checkpoint, not from that random LM: an arm whose
 * starting LM trained long enough for its embedding table to move re-evaluates to the predictions
 * of the run that trained it.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { initBackend, readCheckpoint } from '@telepath/core';
import { beforeAll, describe, expect, it } from 'vitest';
import { evalCommand, evalResultBase } from './eval.js';
import { validateExperiment } from '../experiment/experiment.js';
import { runExperiment } from '../running/run-experiment.js';
import { MICRO_SETTINGS } from '../testing.js';

beforeAll(async () => {
  await initBackend('cpu', { quiet: true });
});

const std = (typed: ArrayLike<number>) => {
  const values = Array.from(typed);
  const mean = values.reduce((a, b) => a + b, 0) / values.length;
  return Math.sqrt(values.reduce((a, b) => a + (b - mean) ** 2, 0) / values.length);
};

describe('telepath eval restores init-time scales', () => {
  it('CoLaR and Liu arms started from a trained LM re-evaluate to the predictions of their run', async () => {
    const runs = mkdtempSync(join(tmpdir(), 'lab-scale-'));
    const exp = validateExperiment(
      {
        name: 'scale',
        ...MICRO_SETTINGS,
        train: { ...MICRO_SETTINGS.train, checkpointEvery: 100, optim: { lr: 0.03, warmupSteps: 1 } },
        arms: [
          { name: 'cot', method: 'cot', config: { variant: 'cot', steps: 40 } },
          {
            name: 'colar',
            method: 'colar',
            initFrom: 'cot',
            config: { sftSteps: 3, compressionFactor: 2, maxLatents: 6, decoding: 'greedy' },
          },
          {
            name: 'liu',
            method: 'coprocessor',
            initFrom: 'cot',
            config: { variant: 'liu', latentTokens: 2, steps: 3 },
          },
        ],
      },
      'scale.json',
    );
    await runExperiment(exp, { runsDir: runs, quiet: true, log: () => {} });
    // The starting LM's embedding table moved well away from its init (std 0.02).
    const cot = await readCheckpoint(join(runs, 'scale', 'cot', 's0', 'final.ckpt'));
    expect(std(cot.tensors.get('param/wte')!.values)).toBeGreaterThan(0.04);
    for (const arm of ['colar', 'liu']) {
      const dir = join(runs, 'scale', arm, 's0');
      const samples = readFileSync(join(dir, 'samples.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { question: string; prediction: string });
      const asInput = (q: string) => {
        const m = /^Make (\d+) from ([\d ]+)\.$/.exec(q)!;
        return { input: m[2].split(' ').join(','), output: m[1] };
      };
      const file = join(runs, `${arm}-again.jsonl`);
      writeFileSync(file, samples.map((s) => JSON.stringify(asInput(s.question))).join('\n') + '\n');
      expect(await evalCommand([dir, '--data', file, '--backend', 'cpu'])).toBe(0);
      const again = readFileSync(join(dir, `${evalResultBase(file)}.samples.jsonl`), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { prediction: string });
      expect(
        again.map((s) => s.prediction),
        arm,
      ).toEqual(samples.map((s) => s.prediction));
    }
  }, 60_000);
});
