/**
 * A mid-curriculum checkpoint decodes as its phase trained: `telepath eval --checkpoint stage1` on
 * a Coconut arm with N_L 2 feeds one thought (stage 1 replaced one line), stage 2 and the finished
 * arm two; a method whose decoding has no phases (CoT) answers the same with or without a phase.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { initBackend } from '@telepath/core';
import { beforeAll, expect, it } from 'vitest';
import { evalCommand, evalResultBase } from '../commands/eval.js';
import { validateExperiment } from '../experiment/experiment.js';
import { runExperiment } from '../running/run-experiment.js';
import { MICRO_SETTINGS } from '../testing.js';

beforeAll(async () => void (await initBackend('cpu', { quiet: true })));

it('telepath eval --checkpoint decodes a Coconut stage with that stage’s thoughts', { timeout: 180_000 }, async () => {
  const runs = mkdtempSync(join(tmpdir(), 'lab-phase-'));
  const coconut = { variant: 'continuous-thought', latentTokens: 2, stepsPerStage: 1, finalStageSteps: 1 };
  const exp = validateExperiment(
    {
      name: 'phase',
      ...MICRO_SETTINGS,
      arms: [
        { name: 'cot', method: 'cot', config: { variant: 'cot', steps: 2 } },
        { name: 'coconut', method: 'soft-embedding', initFrom: 'cot', config: coconut },
      ],
    },
    'phase.json',
  );
  expect((await runExperiment(exp, { runsDir: runs, quiet: true, log: () => {} })).interrupted).toBe(false);
  const file = join(runs, 'extra.jsonl');
  writeFileSync(file, '{"input": "3,5,7", "output": "15"}\n{"input": "2,4,6", "output": "12"}\n');
  const lengthsAt = async (arm: string, phase?: string) => {
    const dir = join(runs, 'phase', arm, 's0');
    const args = [dir, '--data', file, '--backend', 'cpu', ...(phase ? ['--checkpoint', phase] : [])];
    expect(await evalCommand(args)).toBe(0);
    const step = phase === 'sft' ? 2 : 1;
    const base = evalResultBase(file) + (phase ? `.${phase}-step${step}` : '');
    return readFileSync(join(dir, `${base}.samples.jsonl`), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { reasoningLength: number; text: string });
  };
  expect((await lengthsAt('coconut', 'stage1')).map((s) => s.reasoningLength)).toEqual([1, 1]);
  expect((await lengthsAt('coconut', 'stage2')).map((s) => s.reasoningLength)).toEqual([2, 2]);
  expect((await lengthsAt('coconut')).map((s) => s.reasoningLength)).toEqual([2, 2]);
  // CoT's last phase checkpoint holds its final weights, and a phase changes nothing in its decoding.
  expect((await lengthsAt('cot', 'sft')).map((s) => s.text)).toEqual((await lengthsAt('cot')).map((s) => s.text));
});
