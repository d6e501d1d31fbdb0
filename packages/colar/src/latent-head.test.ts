import * as tf from '@tensorflow/tfjs-core';
import { initBackend, Rng } from '@telepath/core';
import { expectClose, expectNoLeak, tinyLm } from '@telepath/core/testing';
import { beforeAll, describe, expect, it } from 'vitest';
import { createHead, DETERMINISTIC_STD, gaussianLogDensity, headForward, sampleLatent } from './latent-head.js';

beforeAll(async () => {
  await initBackend('cpu', { quiet: true });
});

/** log N(z; μ, σ²) per dimension, written out by hand. */
const logNormal = (z: number, mu: number, sigma: number) =>
  -((z - mu) ** 2) / (2 * sigma * sigma) - Math.log(sigma) - 0.5 * Math.log(2 * Math.PI);

describe('latent head', () => {
  it('log-density equals a hand-computed diagonal Gaussian, averaged over C', () => {
    const z = tf.tensor2d([[0.5, -1, 2]]);
    const mu = tf.tensor2d([[0, -1.5, 1]]);
    const logStd = tf.tensor2d([[0, Math.log(0.5), Math.log(2)]]);
    const got = gaussianLogDensity(z, mu, logStd);
    const want = (logNormal(0.5, 0, 1) + logNormal(-1, -1.5, 0.5) + logNormal(2, 1, 2)) / 3;
    expectClose(got, [want], { rtol: 1e-5 });
    const hot = gaussianLogDensity(z, mu, logStd, 2); // temperature scales σ
    expectClose(hot, [(logNormal(0.5, 0, 2) + logNormal(-1, -1.5, 1) + logNormal(2, 1, 4)) / 3], { rtol: 1e-5 });
    tf.dispose([z, mu, logStd, got, hot]);
  });

  it('maps hidden states [N, T, C] to mean and log-std [N, T, C]; the log-density of a head sample matches the formula', async () => {
    const head = createHead(8, 16, 'gaussian', 0.3, new Rng(0));
    const h = tf.tensor3d(new Rng(1).normalArray(2 * 3 * 8), [2, 3, 8]);
    const out = await expectNoLeak(() => headForward(head, h), { allowed: 2 });
    expect(out.mean.shape).toEqual([2, 3, 8]);
    expect(out.logStd.shape).toEqual([2, 3, 8]);
    const z = sampleLatent(out, 1, new Rng(2), false);
    const [m, ls, zz] = [out.mean.dataSync(), out.logStd.dataSync(), z.dataSync()];
    const want: number[] = [];
    for (let r = 0; r < 6; r++) {
      let acc = 0;
      for (let c = 0; c < 8; c++) acc += logNormal(zz[r * 8 + c], m[r * 8 + c], Math.exp(ls[r * 8 + c]));
      want.push(acc / 8);
    }
    const got = gaussianLogDensity(z, out.mean, out.logStd);
    expect(got.shape).toEqual([2, 3]);
    expectClose(got, want, { rtol: 1e-4, atol: 1e-4 });
    tf.dispose([h, out.mean, out.logStd, z, got]);
    head.params.forEach((v) => v.dispose());
  });

  it('the deterministic head has no log-std layer, σ = 1e-9, and samples its mean', () => {
    const head = createHead(4, 8, 'deterministic', 0.3, new Rng(0));
    expect([...head.params.keys()]).not.toContain('wLogStd');
    const h = tf.ones([1, 4]);
    const out = headForward(head, h);
    expectClose(tf.exp(out.logStd), [DETERMINISTIC_STD, DETERMINISTIC_STD, DETERMINISTIC_STD, DETERMINISTIC_STD], {
      rtol: 1e-4,
      atol: 0,
    });
    const z = sampleLatent(out, 1, new Rng(5), false);
    expectClose(z, out.mean, { atol: 1e-6 });
    tf.dispose([h, out.mean, out.logStd, z]);
    head.params.forEach((v) => v.dispose());
  });

  it('samples μ + σ·T·ε: mean and spread over many draws; greedy returns μ', () => {
    const mean = tf.fill([4000, 2], 0.5);
    const logStd = tf.tensor2d(Array.from({ length: 4000 }, () => [Math.log(0.1), Math.log(2)]).flat(), [4000, 2]);
    const z = sampleLatent({ mean, logStd }, 0.5, new Rng(7), false);
    const { mean: m, variance } = tf.moments(z, 0);
    expectClose(m, [0.5, 0.5], { atol: 0.05 });
    expectClose(tf.sqrt(variance), [0.05, 1], { rtol: 0.05 });
    const g = sampleLatent({ mean, logStd }, 1, new Rng(7), true);
    expectClose(g, mean);
    tf.dispose([mean, logStd, z, m, variance, g]);
  });
});
