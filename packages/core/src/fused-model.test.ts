/**
 * The whole decoder on `native` (fused GELU, LayerNorm, attention softmax and AdamW kernels)
 * against cpu (plain ops) and against native's own plain-op path: loss and every parameter's
 * gradient within 1e-5 relative, and a short training run through train() that tracks cpu with a
 * flat tensor count. Skipped, with the reason, where the native backend is not installed.
 */
import * as tf from '@tensorflow/tfjs-core';
import { describe, expect, it } from 'vitest';
import { initBackend } from './backend.js';
import { activeFusedKernels, setFusedKernels } from './fused.js';
import { maskedCrossEntropy } from './loss.js';
import { Rng } from './rng.js';
import { relativeError, tinyLm } from './testing.js';
import { train } from './train.js';
import type { TinyLm } from './tiny-lm.js';

let nativeReason = '';
try {
  await initBackend('native', { quiet: true });
} catch (e) {
  nativeReason = (e as Error).message.split('\n').slice(-1)[0].trim();
  console.warn(`[fused-model.test] native unavailable, skipped: ${nativeReason}`);
}

// Awkward sizes: width 33 in 3 heads of 11, MLP 132, vocabulary 17, 7 positions, a padded row.
const CONFIG = { vocabSize: 17, contextLength: 16, layers: 2, heads: 3, width: 33, initStd: 0.3 };
const B = 3;
const T = 7;

function batch(rng: Rng): { x: tf.Tensor2D; y: tf.Tensor2D; mask: tf.Tensor2D } {
  const rows = Array.from({ length: B }, () => Array.from({ length: T + 1 }, () => rng.int(CONFIG.vocabSize)));
  const mask = rows.map((_, b) => Array.from({ length: T }, (__, t) => (b === 1 && t >= T - 2 ? 0 : 1))); // row 1 ends in padding
  return {
    x: tf.tensor2d(
      rows.map((r) => r.slice(0, T)),
      [B, T],
      'int32',
    ),
    y: tf.tensor2d(
      rows.map((r) => r.slice(1)),
      [B, T],
      'int32',
    ),
    mask: tf.tensor2d(mask, [B, T]),
  };
}

function lossOf(lm: TinyLm, rng: Rng): tf.Scalar {
  return tf.tidy(() => {
    const { x, y, mask } = batch(rng);
    return maskedCrossEntropy(lm.forward(lm.embed(x), { attentionMask: mask }).logits, y, mask);
  });
}

/** Loss and every parameter gradient of a fresh model (same seed) on `backend`. */
async function lossAndGrads(
  backend: 'cpu' | 'native',
  fused = true,
): Promise<{ loss: number; grads: Map<string, Float32Array>; kernels: string[] }> {
  await initBackend(backend, { quiet: true });
  const was = setFusedKernels(fused);
  const lm = tinyLm(CONFIG, 11);
  try {
    const { value, grads } = tf.variableGrads(() => lossOf(lm, new Rng(4)), lm.variables());
    const out = new Map([...lm.params].map(([name, v]) => [name, Float32Array.from(grads[v.name].dataSync())]));
    const loss = value.dataSync()[0];
    tf.dispose([value, ...Object.values(grads)]);
    return { loss, grads: out, kernels: activeFusedKernels() };
  } finally {
    lm.dispose();
    setFusedKernels(was);
  }
}

function expectSameLossAndGrads(
  got: Awaited<ReturnType<typeof lossAndGrads>>,
  want: Awaited<ReturnType<typeof lossAndGrads>>,
): void {
  expect(relativeError([got.loss], [want.loss]), 'loss').toBeLessThan(1e-5);
  // Norm-wise per parameter. The key biases' gradients are zero in exact arithmetic (softmax
  // ignores a per-row constant): both paths give rounding noise there, judged against the
  // model's largest gradient instead.
  let globalMax = 0;
  for (const g of want.grads.values()) for (const v of g) globalMax = Math.max(globalMax, Math.abs(v));
  for (const [name, g] of want.grads) {
    const n = got.grads.get(name)!;
    if (name.endsWith('attn.bk'))
      expect(Math.max(...n.map((v, i) => Math.abs(v - g[i]))), name).toBeLessThan(1e-6 * globalMax);
    else expect(relativeError(n, g, 'l2'), name).toBeLessThan(1e-5);
  }
}

describe.skipIf(nativeReason !== '')('the decoder on native with fused kernels', () => {
  it('runs all four fused kernels, and loss and gradients match cpu', async () => {
    const want = await lossAndGrads('cpu');
    const got = await lossAndGrads('native');
    expect(want.kernels).toEqual([]);
    expect(got.kernels).toHaveLength(4);
    expectSameLossAndGrads(got, want);
  });

  it('loss and gradients match its own plain-op path', async () => {
    const plain = await lossAndGrads('native', false);
    const fused = await lossAndGrads('native', true);
    expect(plain.kernels).toEqual([]);
    expectSameLossAndGrads(fused, plain);
  });

  it('train() with AdamW tracks cpu over 12 steps, with a flat tensor count', async () => {
    const losses: Record<string, number[]> = {};
    for (const backend of ['cpu', 'native'] as const) {
      await initBackend(backend, { quiet: true });
      const lm = tinyLm(CONFIG, 11);
      const counts: number[] = [];
      const optim = {
        lr: 1e-2,
        lrMinRatio: 0.1,
        warmupSteps: 2,
        beta1: 0.9,
        beta2: 0.999,
        eps: 1e-8,
        weightDecay: 0.01,
        clipNorm: 1,
      };
      const res = await train({
        params: lm.params,
        rng: new Rng(2),
        config: { steps: 12, logEvery: 1, optim },
        loss: ({ rng }) => lossOf(lm, rng),
        onLog: () => counts.push(tf.memory().numTensors),
      });
      expect(new Set(counts).size, `${backend} tensor counts ${counts.join(',')}`).toBe(1);
      losses[backend] = res.losses;
      lm.dispose();
    }
    losses.native.forEach((l, i) => expect(relativeError([l], [losses.cpu[i]]), `step ${i}`).toBeLessThan(1e-4));
    expect(losses.native[11]).toBeLessThan(losses.native[0]);
  });
});
