/**
 * Golden tests (house rule 9c) for ThoughtComm's prefix adapters: three fixedInitLm agents, a fixed
 * structure and fixed thoughts; the agreement weights and adapters trained for 5 steps on cpu with
 * fixed batches must reproduce src/__fixtures__/adapter-<objective>-golden.json within 1e-4.
 * Regenerate after an intended change: cd packages/thought-comm && TELEPATH_UPDATE_GOLDEN=1 npx vitest run golden
 */
import { fileURLToPath } from 'node:url';
import * as tf from '@tensorflow/tfjs-core';
import { exampleTexts, initBackend, Rng, Tokenizer, train } from '@telepath/core';
import {
  expectGolden,
  fixedInitLm,
  GOLDEN_TRAIN,
  goldenBatch,
  tinyLmConfig,
  toyAdditionExamples,
} from '@telepath/core/testing';
import { beforeAll, describe, expect, it } from 'vitest';
import { adapterLoss, paperContinuations } from './adapter-loss.js';
import { DEFAULT_AGENTS_EXPERIMENT_CONFIG } from './agents-config.js';
import { respond, type Agent } from './agents.js';
import { createComm } from './model.js';
import { DEFAULT_READOUT_CONFIG } from './config.js';
import { structureFromStrengths } from './structure.js';

beforeAll(async () => {
  await initBackend('cpu', { quiet: true });
});

describe('thought-comm adapter golden', () => {
  it.each(['task', 'paper'] as const)(
    '%s: 5 steps from fixedInitLm agents reproduce the fixture',
    async (objective) => {
      const t0 = performance.now();
      const data = toyAdditionExamples(64);
      const tokenizer = Tokenizer.build(exampleTexts(data));
      const agents: Agent[] = [0, 1, 2].map((k) => ({
        lm: fixedInitLm({ ...tinyLmConfig, vocabSize: tokenizer.size, contextLength: 24 }, `golden-agent${k}`),
        tokenizer,
        variant: 'no-cot',
      }));
      // 3 agents × 3 thoughts: shared by all, by A and C, by B and C.
      const st = structureFromStrengths(
        new Float32Array(2 * 3),
        Float32Array.from([1, 0.9, 0.01, 1, 0.01, 0.8, 1, 0.7, 0.9]),
        3,
        2,
        3,
        DEFAULT_READOUT_CONFIG,
      );
      const cfg = { ...DEFAULT_AGENTS_EXPERIMENT_CONFIG.adapter, hidden: 6, continuationTokens: 3 };
      const comm = createComm(st, cfg, [8, 8, 8], [1, 1, 1], new Rng(5));
      const zAll = new Rng(6).normalArray(64 * 3);
      const stepBatch = (step: number) => {
        const examples = goldenBatch(data, step);
        const rows = examples.map((ex) => data.indexOf(ex));
        return {
          examples,
          z: tf.tensor2d(
            rows.flatMap((r) => Array.from(zAll.subarray(r * 3, r * 3 + 3))),
            [examples.length, 3],
          ) as tf.Tensor2D,
        }; // z [B, Z]
      };
      let decoded: { refs: number[][][]; continuations?: number[][][] } | undefined;
      const res = await train({
        params: comm.params,
        rng: new Rng(7),
        config: GOLDEN_TRAIN,
        // y_ref and the paper objective's y_gen are decoded before the gradient tape (asynchronous reads).
        prepare: async (at) => {
          const { examples, z } = stepBatch(at.step);
          try {
            const refs: number[][][] = [];
            for (const a of agents) refs.push((await respond(a, examples, null, { maxNewTokens: 3 })).responses);
            decoded = {
              refs,
              ...(objective === 'paper'
                ? { continuations: await paperContinuations(agents, comm, { examples, z }, cfg) }
                : {}),
            };
          } finally {
            z.dispose();
          }
        },
        loss: (at) => adapterLoss(agents, comm, objective, { ...stepBatch(at.step), ...decoded! }),
      });
      comm.dispose();
      agents.forEach((a) => a.lm.dispose());
      expect(performance.now() - t0, 'a golden test must take < 5 s').toBeLessThan(5000);
      await expectGolden(
        fileURLToPath(new URL(`./__fixtures__/adapter-${objective}-golden.json`, import.meta.url)),
        res.losses,
      );
    },
  );
});
