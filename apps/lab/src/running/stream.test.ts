/**
 * One training stream per seed: a latent arm and its reference trained the same extra steps see
 * the same examples at every step, whatever the method's phases (soft tokens: one phase; Coconut:
 * one phase per stage), checked on the `<phase>/batch` digests a micro experiment logs.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { initBackend } from '@telepath/core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { validateExperiment } from '../experiment/experiment.js';
import { MICRO_SETTINGS } from '../testing.js';
import { runExperiment } from './run-experiment.js';

const runs = mkdtempSync(join(tmpdir(), 'lab-stream-'));
beforeAll(async () => void (await initBackend('cpu', { quiet: true })));
afterAll(() => rmSync(runs, { recursive: true, force: true }));

/** The batch digest of every global step (phases laid end to end, in the order they were logged). */
function stream(arm: string, seed = 0): number[] {
  const lines = readFileSync(join(runs, 'stream', arm, `s${seed}`, 'metrics.jsonl'), 'utf8')
    .trim()
    .split('\n');
  const out: number[] = [];
  let offset = 0;
  let phase = '';
  let last = 0;
  for (const l of lines.map((x) => JSON.parse(x) as Record<string, number>)) {
    const key = Object.keys(l).find((k) => k.endsWith('/batch'));
    if (!key) continue;
    const p = key.slice(0, -'/batch'.length);
    if (p !== phase) [offset, phase] = [offset + last, p];
    last = l.step;
    out[offset + l.step - 1] = l[key];
  }
  return out;
}

it('a latent arm and its extra-steps reference draw the same batch at every step', { timeout: 180_000 }, async () => {
  const coconut = {
    variant: 'continuous-thought',
    latentTokens: 2,
    firstStage: 1,
    stepsPerStage: 1,
    finalStageSteps: 1,
  };
  const exp = validateExperiment(
    {
      name: 'stream',
      ...MICRO_SETTINGS,
      seeds: [0, 1],
      arms: [
        { name: 'no-cot', method: 'cot', config: { variant: 'no-cot', steps: 2 } },
        {
          name: 'soft',
          method: 'soft-embedding',
          initFrom: 'no-cot',
          config: { variant: 'soft-tokens', latentTokens: 2, steps: 3 },
        },
        { name: 'no-cot-more', method: 'cot', initFrom: 'no-cot', config: { variant: 'no-cot', steps: 3 } },
        { name: 'cot', method: 'cot', config: { variant: 'cot', steps: 2 } },
        { name: 'coconut', method: 'soft-embedding', initFrom: 'cot', config: coconut },
        { name: 'cot-more', method: 'cot', initFrom: 'cot', config: { variant: 'cot', steps: 3 } },
      ],
    },
    'stream.json',
  );
  await runExperiment(exp, { runsDir: runs, quiet: true, log: () => {} });

  const coconutPhases = new Set(
    readFileSync(join(runs, 'stream', 'coconut', 's0', 'metrics.jsonl'), 'utf8')
      .match(/"(stage\d+)\/batch"/g)!
      .map((m) => m.slice(1, -7)),
  );
  expect(coconutPhases.size).toBe(3); // three stages of one step each, read end to end

  for (const seed of [0, 1]) {
    expect(stream('soft', seed)).toHaveLength(3);
    expect(new Set(stream('soft', seed)).size).toBe(3); // a new batch every step
    expect(stream('soft', seed)).toEqual(stream('no-cot-more', seed));
    expect(stream('coconut', seed)).toEqual(stream('cot-more', seed));
    // Every arm of the seed reads the same stream from its first step (CoT and No-CoT alike).
    expect(stream('no-cot', seed)).toEqual(stream('no-cot-more', seed).slice(0, 2));
    expect(stream('cot', seed)).toEqual(stream('cot-more', seed).slice(0, 2));
  }
  expect(stream('soft', 1)).not.toEqual(stream('soft', 0)); // another seed, another stream
});
