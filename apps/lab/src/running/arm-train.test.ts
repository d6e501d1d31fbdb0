/**
 * An arm's own training settings (`arms[i].train`) reach its training: its batches have its batch
 * size, it logs at its own interval, and its record holds the settings it ran with.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { initBackend, Rng } from '@telepath/core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { loadTaskData } from '../experiment/data.js';
import { armData } from '../experiment/arm-settings.js';
import { validateExperiment } from '../experiment/experiment.js';
import { metricLines, MICRO_SETTINGS } from '../testing.js';
import { batchDigest, trainBatch } from './batches.js';
import { runExperiment } from './run-experiment.js';

const runs = mkdtempSync(join(tmpdir(), 'lab-arm-train-'));
beforeAll(async () => void (await initBackend('cpu', { quiet: true })));
afterAll(() => rmSync(runs, { recursive: true, force: true }));

it('an arm trains with its own batch size and log interval, and records them', { timeout: 60_000 }, async () => {
  const exp = validateExperiment(
    {
      name: 'arm-train',
      ...MICRO_SETTINGS,
      eval: { ...MICRO_SETTINGS.eval, curveEvery: 0 },
      arms: [
        { name: 'own', method: 'cot', train: { batchSize: 2, logEvery: 2 }, config: { variant: 'no-cot', steps: 4 } },
        { name: 'shared', method: 'cot', config: { variant: 'no-cot', steps: 4 } },
      ],
    },
    'arm-train.json',
  );
  await runExperiment(exp, { runsDir: runs, quiet: true, log: () => {} });
  const metrics = (arm: string) => metricLines(runs, 'arm-train', arm, 's0').filter((m) => 'sft/loss' in m);
  expect(metrics('own').map((m) => m.step)).toEqual([1, 2, 4]); // the first step, then every 2
  expect(metrics('shared').map((m) => m.step)).toEqual([1, 2, 3, 4]);
  // Step 2's batch (logged with step 2), drawn as the run draws it, at each arm's batch size.
  const data = await loadTaskData('countdown', armData(exp, exp.arms[0]));
  const digest = (size: number) =>
    batchDigest(trainBatch(data, new Rng(0).fork('train/sft').fork('step/1').fork('micro/0'), 1, size));
  expect(metrics('own')[1]['sft/batch']).toBe(digest(2));
  expect(metrics('shared')[1]['sft/batch']).toBe(digest(MICRO_SETTINGS.train.batchSize));
  const resolved = (arm: string) =>
    JSON.parse(readFileSync(join(runs, 'arm-train', arm, 's0', 'config.resolved.json'), 'utf8'));
  expect(resolved('own').train).toMatchObject({ batchSize: 2, logEvery: 2, checkpointEvery: 2 });
  expect(resolved('own').arm.train).toEqual({ batchSize: 2, logEvery: 2 });
  expect(resolved('shared').train.batchSize).toBe(MICRO_SETTINGS.train.batchSize);
  expect(resolved('shared').arm.train).toBeUndefined();
});
