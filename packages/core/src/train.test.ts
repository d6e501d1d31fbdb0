import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as tf from '@tensorflow/tfjs-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { initBackend } from './backend.js';
import { maskedCrossEntropy } from './loss.js';
import { DEFAULT_OPTIM_CONFIG } from './optim.js';
import { Rng } from './rng.js';
import { tinyLm } from './testing.js';
import type { TinyLm } from './tiny-lm.js';
import { NonFiniteError, train, type TrainConfig } from './train.js';

beforeAll(async () => {
  await initBackend('cpu', { quiet: true });
});

/** Sequences "s, s+d, s+2d, …" mod 16 with (s, d) drawn from the step's rng. */
function batchLoss(lm: TinyLm, rng: Rng, B = 4, T = 8): tf.Scalar {
  const rows: number[][] = [];
  for (let b = 0; b < B; b++) {
    const s = rng.int(16);
    const d = 1 + rng.int(3);
    rows.push(Array.from({ length: T + 1 }, (_, t) => (s + d * t) % 16));
  }
  const x = tf.tensor2d(
    rows.map((r) => r.slice(0, T)),
    [B, T],
    'int32',
  );
  const y = tf.tensor2d(
    rows.map((r) => r.slice(1)),
    [B, T],
    'int32',
  );
  return maskedCrossEntropy(lm.forward(lm.embed(x)).logits, y, tf.onesLike(y) as tf.Tensor2D);
}

const CFG = (steps: number): Partial<TrainConfig> => ({
  steps,
  logEvery: 1000,
  optim: { ...DEFAULT_OPTIM_CONFIG, lr: 1e-2, warmupSteps: 2 },
});

describe('train', () => {
  it('overfits one fixed batch to near-zero loss', async () => {
    const lm = tinyLm({ width: 16 });
    const fixed = new Rng(99);
    const res = await train({
      params: lm.params,
      rng: new Rng(0),
      config: { ...CFG(150), optim: { ...DEFAULT_OPTIM_CONFIG, lr: 2e-2, warmupSteps: 2, weightDecay: 0 } },
      loss: () => batchLoss(lm, fixed.fork('batch')),
    });
    expect(res.losses[0]).toBeGreaterThan(2);
    expect(res.losses[res.losses.length - 1]).toBeLessThan(0.05);
    lm.dispose();
  }, 30_000); // 150 steps on the cpu backend: ≈ 5 s alone, more beside other test files

  it('same seed gives identical losses; the tensor count stays flat over 20 steps', async () => {
    const counts: number[] = [];
    const run = async () => {
      const lm = tinyLm();
      const r = await train({
        params: lm.params,
        rng: new Rng(5),
        config: { ...CFG(20), logEvery: 1 },
        loss: ({ rng }) => batchLoss(lm, rng),
        onLog: () => counts.push(tf.memory().numTensors),
      });
      lm.dispose();
      return r.losses;
    };
    const before = tf.memory().numTensors;
    const a = await run();
    expect(tf.memory().numTensors).toBe(before);
    counts.length = 0;
    const b = await run();
    expect(b).toEqual(a);
    expect(counts).toHaveLength(20);
    expect(new Set(counts).size).toBe(1); // the optimiser's moments exist from the start: flat from step 1
  });

  it('awaits a promise onLog returns before the next step (the lab evaluates its training curve there)', async () => {
    const lm = tinyLm();
    const events: string[] = [];
    await train({
      params: lm.params,
      rng: new Rng(5),
      config: { ...CFG(3), logEvery: 1 },
      loss: ({ rng, step }) => {
        events.push(`step ${step}`);
        return batchLoss(lm, rng);
      },
      onLog: async (l) => {
        await new Promise((resolve) => setTimeout(resolve, 5));
        events.push(`logged ${l.step}`);
      },
    });
    lm.dispose();
    expect(events).toEqual(['step 0', 'logged 1', 'step 1', 'logged 2', 'step 2', 'logged 3']);
  });

  it("awaits prepare before each micro-batch's loss, with the step, the micro-batch and an equal fresh rng", async () => {
    const lm = tinyLm();
    const events: string[] = [];
    let prepared = -1;
    await train({
      params: lm.params,
      rng: new Rng(5),
      config: { ...CFG(2), gradAccum: 2 },
      prepare: async ({ step, micro, rng }) => {
        await new Promise((resolve) => setTimeout(resolve, 2));
        prepared = rng.int(1000);
        events.push(`prepare ${step}/${micro}`);
      },
      loss: ({ step, micro, rng }) => {
        events.push(`loss ${step}/${micro} ${rng.int(1000) === prepared ? 'same draw' : 'other draw'}`);
        return batchLoss(lm, rng);
      },
    });
    lm.dispose();
    expect(events).toEqual([
      'prepare 0/0',
      'loss 0/0 same draw',
      'prepare 0/1',
      'loss 0/1 same draw',
      'prepare 1/0',
      'loss 1/0 same draw',
      'prepare 1/1',
      'loss 1/1 same draw',
    ]);
  });

  it('gradient accumulation over two halves equals one full batch', async () => {
    const full = tinyLm();
    const halves = tinyLm();
    const rows = new Rng(3);
    await train({
      params: full.params,
      rng: new Rng(1),
      config: { ...CFG(1), gradAccum: 1 },
      loss: () => batchLoss(full, rows.fork('b'), 4),
    });
    await train({
      params: halves.params,
      rng: new Rng(1),
      config: { ...CFG(1), gradAccum: 2 },
      loss: ({ micro }) =>
        tf.tidy(() => {
          // The same four rows, split two and two: mean of the halves' means = the full mean.
          const all = rows.fork('b');
          const lossA = batchLoss(halves, all, 2);
          const lossB = batchLoss(halves, all, 2);
          return micro === 0 ? lossA : lossB;
        }),
    });
    const a = full.params.get('h0.attn.wq')!.dataSync();
    const b = halves.params.get('h0.attn.wq')!.dataSync();
    for (let i = 0; i < a.length; i++) expect(Math.abs(a[i] - b[i])).toBeLessThan(1e-6);
    full.dispose();
    halves.dispose();
  });

  it('stops on a non-finite loss or gradient, naming the step and the tensor', async () => {
    const lm = tinyLm();
    await expect(
      train({
        params: lm.params,
        rng: new Rng(0),
        config: CFG(5),
        loss: ({ step }) =>
          tf.tidy(
            () => (step === 2 ? tf.mul(batchLoss(lm, new Rng(1)), Number.NaN) : batchLoss(lm, new Rng(1))) as tf.Scalar,
          ),
      }),
    ).rejects.toThrow(/loss is NaN at step 2/);
    const wpe = lm.params.get('wpe')!;
    await expect(
      train({
        params: lm.params,
        rng: new Rng(0),
        config: CFG(3),
        // sqrt(0) has an infinite derivative: only wpe's gradient becomes non-finite.
        loss: () => tf.tidy(() => tf.add(batchLoss(lm, new Rng(1)), tf.sum(tf.sqrt(tf.mul(wpe, 0))))),
      }),
    ).rejects.toThrow(NonFiniteError);
    await expect(
      train({
        params: lm.params,
        rng: new Rng(0),
        config: CFG(3),
        loss: () => tf.tidy(() => tf.add(batchLoss(lm, new Rng(1)), tf.sum(tf.sqrt(tf.mul(wpe, 0))))),
      }),
    ).rejects.toThrow(/step 0; non-finite gradient in wpe/);
    lm.dispose();
  });

  it('killed at step k and resumed, ends with the same losses and weights as an uninterrupted run', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'resume-'));
    const straight = tinyLm();
    const full = await train({
      params: straight.params,
      rng: new Rng(8),
      config: CFG(12),
      loss: ({ rng }) => batchLoss(straight, rng),
      modelConfig: straight.config,
    });

    const first = tinyLm();
    const path = join(dir, 'ck.bin');
    const part = await train({
      params: first.params,
      rng: new Rng(8),
      config: { ...CFG(12), checkpointEvery: 3 },
      loss: ({ rng }) => batchLoss(first, rng),
      modelConfig: first.config,
      checkpointPath: path,
    });
    expect(part.losses).toEqual(full.losses);

    // A second run interrupted after 5 steps, then a fresh process-like restart from the checkpoint.
    const path2 = join(dir, 'ck2.bin');
    const a = tinyLm();
    let n = 0;
    const interrupted = await train({
      params: a.params,
      rng: new Rng(8),
      config: CFG(12),
      loss: ({ rng }) => batchLoss(a, rng),
      modelConfig: a.config,
      checkpointPath: path2,
      shouldStop: () => ++n >= 5,
    });
    expect(interrupted.interrupted).toBe(true);
    expect(interrupted.finalStep).toBe(5);
    a.dispose();
    const b = tinyLm({}, 1234); // different init: every weight must come from the checkpoint
    const resumed = await train({
      params: b.params,
      rng: new Rng(8),
      config: CFG(12),
      loss: ({ rng }) => batchLoss(b, rng),
      modelConfig: b.config,
      checkpointPath: path2,
    });
    expect(resumed.startStep).toBe(5);
    expect(resumed.losses.length).toBe(12);
    resumed.losses.forEach((l, i) => expect(Math.abs(l - full.losses[i])).toBeLessThan(1e-5));
    const w1 = straight.params.get('h1.mlp.wfc')!.dataSync();
    const w2 = b.params.get('h1.mlp.wfc')!.dataSync();
    for (let i = 0; i < w1.length; i++) expect(Math.abs(w1[i] - w2[i])).toBeLessThan(1e-5);
    [straight, first, b].forEach((m) => m.dispose());
  });

  it('a stop requested from outside (a signal handler, a timer) takes effect after the next step', async () => {
    const lm = tinyLm();
    let stop = false;
    setTimeout(() => (stop = true), 0); // runs only if train() yields to the event loop between steps
    const res = await train({
      params: lm.params,
      rng: new Rng(3),
      config: { ...CFG(200), checkpointEvery: 0 },
      loss: ({ rng }) => batchLoss(lm, rng),
      shouldStop: () => stop,
    });
    expect(res.interrupted).toBe(true);
    expect(res.finalStep).toBeLessThan(5);
    lm.dispose();
  });
});
