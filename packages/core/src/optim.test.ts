import * as tf from '@tensorflow/tfjs-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { initBackend } from './backend.js';
import { AdamW, clipToNorm, decays, DEFAULT_OPTIM_CONFIG, globalNorm, learningRate } from './optim.js';
import { readScalars } from './read.js';
import { variableFrom } from './tidy.js';

beforeAll(async () => {
  await initBackend('cpu', { quiet: true });
});

describe('optimiser', () => {
  it('warms up linearly, then follows a cosine down to lr·lrMinRatio', () => {
    const c = { ...DEFAULT_OPTIM_CONFIG, lr: 1, lrMinRatio: 0.1, warmupSteps: 4 };
    expect([0, 1, 2, 3].map((s) => learningRate(c, s, 104))).toEqual([0.25, 0.5, 0.75, 1]);
    expect(learningRate(c, 4, 104)).toBeCloseTo(1, 10);
    expect(learningRate(c, 54, 104)).toBeCloseTo(0.55, 10);
    expect(learningRate(c, 104, 104)).toBeCloseTo(0.1, 10);
  });

  it('AdamW matches a hand computation, with decay only on matrices', () => {
    const w = variableFrom(tf.tensor2d([[1, -2]]), true, 'w#t');
    const b = variableFrom(tf.tensor1d([0.5]), true, 'b#t');
    const params = new Map<string, tf.Variable>([
      ['h0.mlp.wfc', w],
      ['h0.mlp.bfc', b],
    ]);
    const c = { ...DEFAULT_OPTIM_CONFIG, weightDecay: 0.1 };
    const opt = new AdamW(c, params);
    opt.apply(
      new Map<string, tf.Tensor>([
        ['h0.mlp.wfc', tf.tensor2d([[0.2, 0.4]])],
        ['h0.mlp.bfc', tf.tensor1d([-1])],
      ]),
      0.01,
    );
    // Step 1: m̂ = g, v̂ = g², update = g/(|g|+eps) = sign(g) (+ decay·w for matrices).
    const expectW = [1 - 0.01 * (1 + 0.1 * 1), -2 - 0.01 * (1 + 0.1 * -2)];
    Array.from(w.dataSync()).forEach((x, i) => expect(x).toBeCloseTo(expectW[i], 6));
    expect(b.dataSync()[0]).toBeCloseTo(0.5 + 0.01, 6);
    expect(decays('wte', w)).toBe(false);
    expect(decays('h0.mlp.bfc', b)).toBe(false);
    opt.dispose();
    [w, b].forEach((v) => v.dispose());
  });

  it('clips by the global norm', async () => {
    const g = new Map<string, tf.Tensor>([
      ['a', tf.tensor1d([3, 0])],
      ['b', tf.tensor1d([0, 4])],
    ]);
    const normT = globalNorm(g);
    const [norm] = await readScalars([normT]);
    normT.dispose();
    expect(norm).toBeCloseTo(5, 6);
    const clipped = clipToNorm(g, 1, norm);
    expect(Array.from(clipped.get('b')!.dataSync())[1]).toBeCloseTo(0.8, 5);
    expect(clipToNorm(g, 10, norm)).toBe(g);
    expect(clipToNorm(g, 0, norm)).toBe(g);
  });
});
