/**
 * Every method trains a few steps and evaluates on core's tiny random GPT-2 fixture
 * (`lm.pretrained`), with the checkpoint's byte-level BPE tokenizer and Telepath's special tokens
 * added, and leaves no tensor behind.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as tf from '@tensorflow/tfjs-core';
import { initBackend, loadGpt2, readCheckpoint } from '@telepath/core';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { validateExperiment } from '../experiment/experiment.js';
import { runExperiment } from './run-experiment.js';
import { metricLines, MICRO_SETTINGS } from '../testing.js';

const TINY = fileURLToPath(new URL('../../../../packages/core/src/__fixtures__/tiny-gpt2', import.meta.url));
const runs = mkdtempSync(join(tmpdir(), 'lab-pretrained-'));
beforeAll(async () => void (await initBackend('cpu', { quiet: true })));
afterAll(() => rmSync(runs, { recursive: true, force: true }));

it(
  'cot, No-CoT, soft tokens, Coconut, every coprocessor variant and CoLaR train and evaluate on a pretrained GPT-2 without leaking',
  { timeout: 120_000 },
  async () => {
    const exp = validateExperiment(
      {
        name: 'pretrained-micro',
        ...MICRO_SETTINGS,
        lm: { pretrained: TINY, dropout: 0.1 },
        data: { ...MICRO_SETTINGS.data, trainCount: 8, testCount: 3 },
        eval: { ...MICRO_SETTINGS.eval, maxNewTokens: 8 },
        arms: [
          { name: 'no-cot', method: 'cot', config: { variant: 'no-cot', steps: 2 } },
          { name: 'cot', method: 'cot', config: { variant: 'cot', steps: 2 } },
          {
            name: 'soft',
            method: 'soft-embedding',
            config: { variant: 'soft-tokens', latentTokens: 2, steps: 2, maxNewTokens: 8 },
          },
          {
            name: 'coconut',
            method: 'soft-embedding',
            initFrom: 'cot',
            config: {
              variant: 'continuous-thought',
              latentTokens: 2,
              stepsPerStage: 1,
              finalStageSteps: 1,
              maxNewTokens: 8,
            },
          },
          {
            name: 'liu',
            method: 'coprocessor',
            initFrom: 'no-cot',
            config: { variant: 'liu', latentTokens: 2, steps: 2, pretrainSteps: 1 },
          },
          {
            name: 'h1',
            method: 'coprocessor',
            lm: { layers: 8 },
            config: { variant: 'h1', latentTokens: 2, steps: 2 },
          },
          {
            name: 'h2',
            method: 'coprocessor',
            config: { variant: 'h2', latentTokens: 2, steps: 2, frozenBaseSteps: 1 },
          },
          {
            name: 'colar',
            method: 'colar',
            initFrom: 'cot',
            config: { sftSteps: 2, compressionFactor: 2, maxLatents: 4, maxNewTokens: 8 },
          },
        ],
      },
      'pretrained-micro.json',
    );
    const before = tf.memory().numTensors;
    const warnings: string[] = [];
    vi.spyOn(console, 'error').mockImplementation((s: string) => void warnings.push(s));
    const { results, interrupted } = await runExperiment(exp, { runsDir: runs, quiet: true, log: () => {} });
    vi.restoreAllMocks();
    expect(warnings.join('\n')).toMatch(/h1: its lm settings layers 8 do not apply to the pretrained checkpoint/);
    expect(interrupted).toBe(false);
    expect(results.map((r) => r.arm)).toEqual(exp.arms.map((a) => a.name));
    expect(tf.memory().numTensors).toBe(before);
    for (const r of results) {
      expect(r.accuracy).toBeGreaterThanOrEqual(0);
      const dir = join(runs, 'pretrained-micro', r.arm, 's0');
      expect(existsSync(join(dir, 'final.ckpt'))).toBe(true);
      for (const f of ['model.safetensors', 'config.json', 'tokenizer.json', 'vocab.json', 'merges.txt'])
        expect(existsSync(join(dir, 'hf', f)), `${r.arm} hf/${f}`).toBe(true);
      const model = JSON.parse(readFileSync(join(dir, 'model.json'), 'utf8')) as {
        vocabSize: number;
        width: number;
        contextLength: number;
        dropout: number;
      };
      expect(model).toMatchObject({ vocabSize: 353 + 8, width: 32, contextLength: 64, dropout: 0.1 });
      const metrics = metricLines(dir);
      for (const m of metrics)
        for (const [k, v] of Object.entries(m))
          if (k.endsWith('loss')) expect(Number.isFinite(v), `${r.arm} ${k}`).toBe(true);
    }
    // The exported fine-tuned LM loads back with its special tokens and equals the arm's final weights.
    const cot = await loadGpt2(join(runs, 'pretrained-micro', 'cot', 's0', 'hf'), { addSpecialTokens: true });
    const final = await readCheckpoint(join(runs, 'pretrained-micro', 'cot', 's0', 'final.ckpt'));
    expect(cot.lm.config.vocabSize).toBe(361);
    for (const [name, v] of cot.lm.params)
      expect(Array.from(v.dataSync()), name).toEqual(Array.from(final.tensors.get(`param/${name}`)!.values));
    const untrained = await loadGpt2(TINY, { addSpecialTokens: true });
    expect(Array.from(cot.lm.params.get('wte')!.dataSync())).not.toEqual(
      Array.from(untrained.lm.params.get('wte')!.dataSync()),
    );
    cot.lm.dispose();
    untrained.lm.dispose();
    const resolved = JSON.parse(
      readFileSync(join(runs, 'pretrained-micro', 'cot', 's0', 'config.resolved.json'), 'utf8'),
    ) as { lm: { pretrained: string } };
    expect(resolved.lm.pretrained).toBe(TINY);
  },
);

it('lm.pretrained is experiment-wide, and a from-scratch config records no pretrained key', () => {
  const base = { name: 'x', ...MICRO_SETTINGS, arms: [{ name: 'cot', method: 'cot', config: {} }] };
  expect(validateExperiment(base, 'x.json').lm).not.toHaveProperty('pretrained');
  expect(() =>
    validateExperiment(
      { ...base, arms: [{ name: 'cot', method: 'cot', config: {}, lm: { pretrained: TINY } }] },
      'x.json',
    ),
  ).toThrow(/"pretrained" is set for the whole experiment/);
  expect(() => validateExperiment({ ...base, lm: { pretrained: 3 } }, 'x.json')).toThrow(/lm\.pretrained/);
});
