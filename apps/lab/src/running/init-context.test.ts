/**
 * An arm may start from another's weights with a longer context when positions are rotary (no
 * parameter depends on the context length); with learned positions, whose table does, it is refused.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { initBackend } from '@telepath/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validateExperiment } from '../experiment/experiment.js';
import { MICRO_SETTINGS } from '../testing.js';
import { runExperiment } from './run-experiment.js';

const quiet = { quiet: true, log: () => {} };
const config = { variant: 'cot', steps: 2 };

describe('initFrom across context lengths', () => {
  const runs = mkdtempSync(join(tmpdir(), 'init-context-'));
  beforeAll(async () => {
    await initBackend('cpu', { quiet: true });
  });
  afterAll(() => rmSync(runs, { recursive: true, force: true }));

  const experiment = (name: string, positions: 'rotary' | 'learned') =>
    validateExperiment(
      {
        name,
        ...MICRO_SETTINGS,
        lm: { ...MICRO_SETTINGS.lm, positions, contextLength: 96 },
        arms: [
          { name: 'short', method: 'cot', config },
          // 0 steps: the longer-context arm evaluates the short arm's weights as they are
          {
            name: 'long',
            method: 'cot',
            initFrom: 'short',
            lm: { contextLength: 160 },
            config: { ...config, steps: 0 },
          },
        ],
      },
      `${name}.json`,
    );
  const samples = (exp: string, arm: string) =>
    readFileSync(join(runs, exp, arm, 's0', 'samples.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => (JSON.parse(l) as { text: string }).text);
  const contextOf = (exp: string, arm: string) =>
    (JSON.parse(readFileSync(join(runs, exp, arm, 's0', 'model.json'), 'utf8')) as { contextLength: number })
      .contextLength;

  it('takes a rotary source with a shorter context: the same weights write the same text', async () => {
    await runExperiment(experiment('rotary', 'rotary'), { runsDir: runs, ...quiet });
    expect([contextOf('rotary', 'short'), contextOf('rotary', 'long')]).toEqual([96, 160]);
    expect(samples('rotary', 'long')).toEqual(samples('rotary', 'short'));
  });

  it('refuses a learned-positions source with another context length', async () => {
    const run = runExperiment(experiment('learned', 'learned'), { runsDir: runs, ...quiet });
    await expect(run).rejects.toThrow(/initFrom: model.json of .*short\/s0 differs from this arm's/);
  });
});
