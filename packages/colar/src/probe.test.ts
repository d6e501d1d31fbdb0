import * as tf from '@tensorflow/tfjs-core';
import { initBackend, Rng } from '@telepath/core';
import { expectNoLeak } from '@telepath/core/testing';
import { beforeAll, describe, expect, it } from 'vitest';
import { headForward } from './latent-head.js';
import { sftRows } from './loss.js';
import { exposureProbe } from './probe.js';
import { toyState } from './testing.js';

beforeAll(async () => {
  await initBackend('cpu', { quiet: true });
});

describe('CoLaR exposure probe', () => {
  it('teacher-forced at c = 1 matches the plain LM over the token sequence, measured here by hand', async () => {
    const { state, data } = toyState();
    const questions = data.slice(0, 3);
    const probe = await expectNoLeak(() =>
      exposureProbe(state, questions, { speed: 1, maxNewTokens: 4, rng: new Rng(1) }),
    );
    // At c = 1 every group is one token: the teacher-forced input is the token sequence itself.
    const rows = sftRows(state, questions, 1, new Rng(9));
    let error = 0;
    let nearest = 0;
    let early = 0;
    let positions = 0;
    let end = 0;
    const fed = { error: 0, early: 0, end: 0 };
    const table = tf.tidy(() => state.lm.params.get('wte')!.arraySync() as number[][]);
    for (const r of rows) {
      const ids = r.layout.source;
      const { probs, mean } = tf.tidy(() => {
        const out = state.lm.forward(state.lm.embed(tf.tensor2d([ids], [1, ids.length], 'int32')));
        return {
          probs: tf.softmax(out.logits).arraySync() as number[][][],
          mean: tf
            .mul(headForward(state.head, out.hidden[out.hidden.length - 1]).mean, state.embStd)
            .arraySync() as number[][][],
        };
      });
      for (let i = r.chainStart; i < r.chainEnd; i++) {
        const target = table[ids[i + 1]];
        const m = mean[0][i];
        error += Math.hypot(...m.map((v, j) => v - target[j])) / Math.hypot(...target);
        const dist = table.map((e) => Math.hypot(...m.map((v, j) => v - e[j])));
        if (dist.indexOf(Math.min(...dist)) === ids[i + 1]) nearest += 1;
        early += probs[0][i][state.tokenizer.sepId];
        positions += 1;
      }
      end += probs[0][r.chainEnd][state.tokenizer.sepId];
      // Self-fed: each reasoning token's input is the teacher-forced head mean that predicted it.
      const selfFed = tf.tidy(() => {
        const x = state.lm.embed(tf.tensor2d([ids], [1, ids.length], 'int32')).arraySync() as number[][][];
        for (let u = r.chainStart + 1; u <= r.chainEnd; u++) x[0][u] = mean[0][u - 1];
        const out = state.lm.forward(tf.tensor3d(x));
        return {
          probs: tf.softmax(out.logits).arraySync() as number[][][],
          mean: tf
            .mul(headForward(state.head, out.hidden[out.hidden.length - 1]).mean, state.embStd)
            .arraySync() as number[][][],
        };
      });
      for (let i = r.chainStart; i < r.chainEnd; i++) {
        const target = table[ids[i + 1]];
        fed.error += Math.hypot(...selfFed.mean[0][i].map((v, j) => v - target[j])) / Math.hypot(...target);
        fed.early += selfFed.probs[0][i][state.tokenizer.sepId];
      }
      fed.end += selfFed.probs[0][r.chainEnd][state.tokenizer.sepId];
    }
    expect(probe.questions).toBe(3);
    expect(probe.groups).toBeCloseTo(positions / 3, 9);
    expect(probe.teacherForced.latentError).toBeCloseTo(error / positions, 4);
    expect(probe.teacherForced.nearestToken).toBeCloseTo(nearest / positions, 9);
    expect(probe.teacherForced.stopEarly).toBeCloseTo(early / positions, 5);
    expect(probe.teacherForced.stopAtEnd).toBeCloseTo(end / 3, 5);
    expect(probe.selfFed.latentError).toBeCloseTo(fed.error / positions, 4);
    expect(probe.selfFed.stopEarly).toBeCloseTo(fed.early / positions, 5);
    expect(probe.selfFed.stopAtEnd).toBeCloseTo(fed.end / 3, 5);
    expect(probe.selfFed.latentError).not.toBeCloseTo(probe.teacherForced.latentError, 4);
    expect(probe.freeRunning.stopped).toBeGreaterThanOrEqual(0);
    expect(probe.freeRunning.stopped).toBeLessThanOrEqual(1);
    expect(
      (await exposureProbe(state, questions, { speed: 2, maxNewTokens: 4, rng: new Rng(1) })).selfFed.nearestToken,
    ).toBeNull();
    await expect(exposureProbe(state, [], { speed: 1, maxNewTokens: 4, rng: new Rng(1) })).rejects.toThrow(
      'colar exposure probe: no questions to probe',
    );
    state.dispose();
  });
});
