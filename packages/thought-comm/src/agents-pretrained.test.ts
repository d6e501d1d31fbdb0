import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { initBackend, type Example } from '@telepath/core';
import { expectNoLeak, toyAdditionExamples } from '@telepath/core/testing';
import { parseAgentsExperimentConfig } from './agents-config.js';
import { runAgentsExperiment } from './agents-experiment.js';

/** core's tiny random GPT-2 (2 layers, width 32, byte-level BPE of 353 tokens). */
const TINY_GPT2 = fileURLToPath(new URL('../../core/src/__fixtures__/tiny-gpt2', import.meta.url));
const out = mkdtempSync(join(tmpdir(), 'tc-agents-gpt2-'));
beforeAll(async () => void (await initBackend('cpu', { quiet: true })));
afterAll(() => rmSync(out, { recursive: true, force: true }));

it(
  'agents start from a pretrained GPT-2 (lm.pretrained), train, communicate and debate without leaking',
  { timeout: 120_000 },
  async () => {
    const c = parseAgentsExperimentConfig({
      name: 'gpt2-agents',
      lm: { pretrained: TINY_GPT2 },
      agentTraining: { steps: 2, batchSize: 2, logEvery: 1, checkpointEvery: 2 },
      commExamples: 8,
      autoencoder: {
        latentDim: 4,
        encoderHidden: [8],
        decoderHidden: [8],
        steps: 4,
        batch: 4,
        penaltyDelay: 1,
        penaltyRamp: 1,
        warmupSteps: 1,
      },
      readout: { samples: 4 },
      adapter: { hidden: 4, steps: 1, batchSize: 2, warmupSteps: 0, continuationTokens: 2 },
      objectives: ['task'],
      controls: ['random'],
      rounds: 1,
      eval: { batchSize: 4, maxNewTokens: 3 },
    });
    expect(parseAgentsExperimentConfig({}).lm).not.toHaveProperty('pretrained');
    const examples = toyAdditionExamples(20);
    const data = {
      train: examples.slice(0, 16),
      test: examples.slice(16),
      isCorrect: (ex: Example, a: string) => (ex.answer === a ? 1 : 0),
      hashes: { toy: 'x' },
    };
    const r = await expectNoLeak(() => runAgentsExperiment(c, data, { outDir: out }));
    expect(r.interrupted).toBe(false);
    expect(r.seeds[0].stateLayer).toBe(1); // ⌊2·2/3⌋ of the checkpoint's 2 layers
    expect(r.seeds[0].independent.agents).toHaveLength(3);
  },
);
