/**
 * A finished experiment is read back from its records without loading any task data: ProsQA's
 * balanced graphs took ≈ 70 s per arm's data settings to generate and render, and holding every
 * arm's data at once ran a 15-arm read-back out of heap. Data loads only for an arm that trains
 * (or whose record gains a further test set), and only the latest settings stay loaded.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { initBackend } from '@telepath/core';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { validateExperiment } from '../experiment/experiment.js';
import { MICRO_SETTINGS } from '../testing.js';
import { runExperiment } from './run-experiment.js';

const loads = vi.hoisted(() => ({ settings: [] as object[] }));
vi.mock('../experiment/data.js', async (original) => {
  const data = await original<typeof import('../experiment/data.js')>();
  return {
    ...data,
    loadTaskData: (task: Parameters<typeof data.loadTaskData>[0], settings: object) => {
      loads.settings.push(settings);
      return data.loadTaskData(task, settings);
    },
  };
});

const tmp = mkdtempSync(join(tmpdir(), 'read-back-'));
const quiet = { quiet: true, log: () => {} };
beforeAll(async () => void (await initBackend('cpu', { quiet: true })));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

it(
  'reads a finished experiment back without loading its data, and loads each arm data once while training',
  { timeout: 120_000 },
  async () => {
    const arms = [
      { name: 'no-cot', method: 'cot', config: { variant: 'no-cot', steps: 2 } },
      { name: 'cot', method: 'cot', config: { variant: 'cot', steps: 2 } },
      { name: 'cot-other-data', method: 'cot', data: { trainCount: 30 }, config: { variant: 'cot', steps: 2 } },
    ];
    const exp = validateExperiment({ name: 'read-back', ...MICRO_SETTINGS, seeds: [0, 1], arms }, 'read-back.json');
    const runs = join(tmp, 'runs');
    const trained = await runExperiment(exp, { runsDir: runs, ...quiet });
    // Two data settings, each loaded once for all its arms × seeds (the plan keeps them together).
    expect(loads.settings.map((s) => (s as { trainCount: number }).trainCount)).toEqual([40, 30]);
    // Every record holds Countdown's other split (val_target), which the read-back checks from the settings alone.
    expect(trained.results.every((r) => r.tests?.val_target)).toBe(true);

    loads.settings.length = 0;
    const read = await runExperiment(exp, { runsDir: runs, ...quiet });
    expect(loads.settings).toEqual([]);
    expect(read.rows).toEqual(trained.rows);
  },
);
