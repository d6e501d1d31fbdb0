import * as tf from '@tensorflow/tfjs-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { initBackend, Rng } from '@telepath/core';
import { expectClose, expectNoLeak } from '@telepath/core/testing';
import { DEFAULT_AGENTS_EXPERIMENT_CONFIG } from './agents-config.js';
import { agentPrefix, createComm, prefixFromThoughts, routeThoughts, scaleToNorm } from './model.js';
import { DEFAULT_READOUT_CONFIG } from './config.js';
import { structureFromStrengths } from './structure.js';

beforeAll(async () => {
  await initBackend('cpu', { quiet: true });
});

// 3 agents × 4 thoughts: 0 shared by all (α 3), 1 by A and B (α 2), 2 private to C (α 1), 3 dead (α 0).
const s = Float32Array.from([1.0, 0.8, 0.01, 1e-4, 0.9, 0.7, 0.02, 1e-4, 0.7, 0.05, 0.6, 1e-4]);
const st = structureFromStrengths(new Float32Array(2 * 4), s, 3, 2, 4, DEFAULT_READOUT_CONFIG);
const cfg = { ...DEFAULT_AGENTS_EXPERIMENT_CONFIG.adapter, hidden: 5, prefixLength: 2 };

describe('routing', () => {
  it("passes each agent only its relevant thoughts, weighted by the agreement level's weight", () => {
    const comm = createComm(st, cfg, [6, 6, 8], [1, 2, 3], new Rng(0));
    comm.agreement.assign(tf.tensor1d([10, 20, 30, 40])); // w_0 … w_3
    const z = tf.tensor2d([
      [1, 1, 1, 1],
      [2, -1, 3, 5],
    ]); // [B = 2, Z = 4]
    const routed = [0, 1, 2].map((k) =>
      (routeThoughts(comm, z, k).arraySync() as number[][]).map((r) => r.map((x) => x + 0)),
    ); // + 0 turns −0 into 0
    expect(routed[0]).toEqual([
      [40, 30, 0, 0],
      [80, -30, 0, 0],
    ]); // A: thoughts 0 (α 3) and 1 (α 2)
    expect(routed[1]).toEqual([
      [40, 30, 0, 0],
      [80, -30, 0, 0],
    ]); // B: the same
    expect(routed[2]).toEqual([
      [40, 0, 20, 0],
      [80, 0, 60, 0],
    ]); // C: thoughts 0 and 2 (α 1)
    z.dispose();
    comm.dispose();
  });

  it('gradients reach the agreement weights of the levels an agent uses only', () => {
    const comm = createComm(st, cfg, [6, 6, 8], [1, 2, 3], new Rng(0));
    const z = tf.ones([3, 4]) as tf.Tensor2D;
    const { grads } = tf.variableGrads(() => tf.sum(routeThoughts(comm, z, 2)) as tf.Scalar, [comm.agreement]);
    expect(Array.from(grads[comm.agreement.name].dataSync())).toEqual([0, 3, 0, 3]); // α 1 and α 3, 3 rows each
    tf.dispose([z, ...Object.values(grads)]);
    comm.dispose();
  });
});

describe('prefix adapter', () => {
  it("scales every prefix vector to the agent's embedding norm", () => {
    const comm = createComm(st, cfg, [6, 6, 8], [1, 2, 3], new Rng(0));
    const z = tf.tensor2d(new Rng(1).normalArray(5 * 4), [5, 4]);
    for (const k of [0, 1, 2]) {
      const p = agentPrefix(comm, z, k); // [5, 2, C_k]
      expect(p.shape).toEqual([5, 2, [6, 6, 8][k]]);
      expectClose(tf.norm(p, 'euclidean', -1), new Float32Array(10).fill([1, 2, 3][k]), { rtol: 1e-5 });
      p.dispose();
    }
    z.dispose();
    comm.dispose();
  });

  it('scaleToNorm keeps directions', () => {
    const p = tf.tensor3d([
      [
        [3, 4],
        [0, -2],
      ],
    ]); // [1, 2, 2]
    expectClose(scaleToNorm(p, 10), [6, 8, 0, -10]);
    p.dispose();
  });

  it('routing and adapter leak no tensors, and every adapter variable gets a gradient', async () => {
    const comm = createComm(st, cfg, [6, 6, 8], [1, 2, 3], new Rng(0));
    const z = tf.tensor2d(new Rng(2).normalArray(3 * 4), [3, 4]);
    await expectNoLeak(() => tf.tidy(() => void agentPrefix(comm, z, 0)));
    await expectNoLeak(() => tf.dispose(prefixFromThoughts(comm, routeThoughts(comm, z, 1), 1)), { allowed: 1 }); // the routed thoughts, disposed below
    const vars = [...comm.params.values()].filter((v) => !v.name.includes('adapter2') && !v.name.includes('adapter1'));
    const { grads } = tf.variableGrads(
      () => tf.sum(tf.mul(agentPrefix(comm, z, 0), tf.randomNormal([3, 2, 6], 0, 1, 'float32', 3))) as tf.Scalar,
      vars,
    );
    for (const v of vars) expect(tf.sum(tf.abs(grads[v.name])).dataSync()[0], v.name).toBeGreaterThan(0);
    tf.dispose([z, ...Object.values(grads)]);
    comm.dispose();
  });
});
