/**
 * ThoughtComm's agents on the `webgpu` backend against cpu (the oracle), within 1e-4 and with no
 * leaked tensor: round-0 answers, the agents' joint states, and adapter steps of the paper
 * objective (y_gen decoded by `prepare` with asynchronous reads, then the loss). On a machine
 * without a GPU they run on lavapipe (scripts/setup-lavapipe.sh); without a driver Dawn accepts
 * they say why and skip.
 */
import * as tf from '@tensorflow/tfjs-core';
import { DEFAULT_OPTIM_CONFIG, Rng, train } from '@telepath/core';
import { expectClose, onCpuAndWebgpu, toyAdditionExamples, webgpuSkipReason } from '@telepath/core/testing';
import { beforeAll, describe, expect, it } from 'vitest';
import { adapterLoss, paperContinuations, type CommBatch } from './adapter-loss.js';
import { DEFAULT_AGENTS_EXPERIMENT_CONFIG } from './agents-config.js';
import { createComm } from './model.js';
import { independentRound, jointStates } from './debate.js';
import { DEFAULT_READOUT_CONFIG } from './config.js';
import { structureFromStrengths } from './structure.js';
import { tinyAgents } from './testing.js';

const TOL = { rtol: 1e-4, atol: 1e-4 };
let skipReason: string | null = null;

beforeAll(async () => {
  skipReason = await webgpuSkipReason('thought-comm webgpu tests');
});

describe('thought-comm on webgpu (against cpu)', () => {
  it('round-0 answers, joint states and 2 paper-objective adapter steps give the cpu values', async (ctx) => {
    if (skipReason) return ctx.skip();
    const examples = toyAdditionExamples(8);
    const { cpu, gpu } = await onCpuAndWebgpu(async () => {
      const agents = tinyAgents(3, examples);
      const round0 = await independentRound(agents, examples, { maxNewTokens: 3, batchSize: 4 });
      const h = jointStates(
        agents,
        round0.map((r) => r.transcripts),
        agents.map(() => null),
        2,
      ); // [8, 3·8]
      const states = Array.from(await h.data());
      h.dispose();
      // 3 agents × 3 thoughts, every thought relevant to someone (as the adapter tests).
      const st = structureFromStrengths(
        new Float32Array(2 * 3),
        Float32Array.from([1, 0.9, 0.01, 1, 0.01, 0.8, 1, 0.7, 0.9]),
        3,
        2,
        3,
        DEFAULT_READOUT_CONFIG,
      );
      const cfg = { ...DEFAULT_AGENTS_EXPERIMENT_CONFIG.adapter, hidden: 6, continuationTokens: 3 };
      const comm = createComm(st, cfg, [8, 8, 8], [1, 1, 1], new Rng(0));
      const z = tf.tensor2d(new Rng(5).normalArray(8 * 3), [8, 3]); // [B, Z]
      const batch: CommBatch = { examples, z, refs: round0.map((r) => r.responses) };
      const res = await train({
        params: comm.params,
        rng: new Rng(1),
        config: { steps: 2, logEvery: 100, optim: { ...DEFAULT_OPTIM_CONFIG, lr: 0.01, warmupSteps: 0 } },
        prepare: async () => {
          batch.continuations = await paperContinuations(agents, comm, batch, cfg);
        },
        loss: () => adapterLoss(agents, comm, 'paper', batch),
      });
      const agreement = Array.from(await comm.agreement.data());
      z.dispose();
      comm.dispose();
      agents.forEach((a) => a.lm.dispose());
      return {
        answers: round0.map((r) => r.answers),
        states,
        losses: res.losses,
        agreement,
        continuations: batch.continuations,
      };
    });
    expect(gpu.answers).toEqual(cpu.answers);
    expect(gpu.continuations).toEqual(cpu.continuations);
    expectClose(gpu.states, cpu.states, TOL);
    expectClose(gpu.losses, cpu.losses, TOL);
    expectClose(gpu.agreement, cpu.agreement, TOL);
  });
});
