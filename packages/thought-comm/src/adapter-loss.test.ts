import * as tf from '@tensorflow/tfjs-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_OPTIM_CONFIG, initBackend, Rng, train } from '@telepath/core';
import { expectClose, expectNoLeak, toyAdditionExamples } from '@telepath/core/testing';
import { adapterLoss, cosineDistance, maskedMean, paperContinuations, type CommBatch } from './adapter-loss.js';
import { DEFAULT_AGENTS_EXPERIMENT_CONFIG } from './agents-config.js';
import { respond, type Agent } from './agents.js';
import { createComm } from './model.js';
import { DEFAULT_READOUT_CONFIG } from './config.js';
import { structureFromStrengths } from './structure.js';
import { tinyAgents } from './testing.js';

beforeAll(async () => {
  await initBackend('cpu', { quiet: true });
});

const examples = toyAdditionExamples(8);
let agents: Agent[];
let batch: CommBatch;
// 3 agents × 3 thoughts, every thought relevant to someone.
const st = structureFromStrengths(
  new Float32Array(2 * 3),
  Float32Array.from([1, 0.9, 0.01, 1, 0.01, 0.8, 1, 0.7, 0.9]),
  3,
  2,
  3,
  DEFAULT_READOUT_CONFIG,
);
const cfg = { ...DEFAULT_AGENTS_EXPERIMENT_CONFIG.adapter, hidden: 6, continuationTokens: 3, lr: 0.01, warmupSteps: 0 };

beforeAll(async () => {
  agents = tinyAgents(3, examples);
  const refs: number[][][] = [];
  for (const a of agents) refs.push((await respond(a, examples, null, { maxNewTokens: 3 })).responses);
  batch = { examples, z: tf.tensor2d(new Rng(5).normalArray(8 * 3), [8, 3]), refs };
});
afterAll(() => {
  agents.forEach((a) => a.lm.dispose());
  batch.z.dispose();
});

describe('adapter objectives', () => {
  it('masked mean and cosine distance', () => {
    const h = tf.tensor3d([
      [
        [1, 0],
        [3, 0],
        [100, 100],
      ],
    ]); // [1, 3, 2]
    const m = maskedMean(h, tf.tensor2d([[1, 1, 0]]));
    expectClose(m, [2, 0]);
    expectClose(
      cosineDistance(
        tf.tensor2d([
          [1, 0],
          [0, 2],
        ]),
        tf.tensor2d([
          [2, 0],
          [1, 0],
        ]),
      ),
      0.5,
      { atol: 1e-6 },
    );
  });

  for (const objective of ['task', 'paper'] as const) {
    it(`${objective}: finite, leak-free, and 3 steps change every adapter variable and the agreement weights`, async () => {
      const comm = createComm(st, cfg, [8, 8, 8], [1, 1, 1], new Rng(0));
      // The paper objective's y_gen comes from the current adapter, decoded before the loss (train's prepare).
      const prepare = async () => {
        if (objective === 'paper') batch.continuations = await paperContinuations(agents, comm, batch, cfg);
      };
      const loss = await expectNoLeak(
        async () => {
          await prepare();
          return adapterLoss(agents, comm, objective, batch);
        },
        { allowed: 1 },
      );
      expect(Number.isFinite(loss.dataSync()[0])).toBe(true);
      loss.dispose();
      const before = new Map([...comm.params].map(([k, v]) => [k, v.dataSync().slice()]));
      const lmBefore = agents[0].lm.params.get('wte')!.dataSync().slice();
      const res = await train({
        params: comm.params,
        rng: new Rng(1),
        config: { steps: 3, logEvery: 1, optim: { ...DEFAULT_OPTIM_CONFIG, lr: 0.01, warmupSteps: 0 } },
        loss: () => adapterLoss(agents, comm, objective, batch),
        prepare,
      });
      expect(res.losses.every(Number.isFinite)).toBe(true);
      for (const [k, v] of comm.params) {
        const changed = v.dataSync().some((x, i) => x !== before.get(k)![i]);
        expect(changed, k).toBe(true);
      }
      expect(agents[0].lm.params.get('wte')!.dataSync()).toEqual(lmBefore); // agents stay frozen
      comm.dispose();
    });
  }
});
