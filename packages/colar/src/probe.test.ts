import * as tf from '@tensorflow/tfjs-core';
import { initBackend, Rng } from '@telepath/core';
import { expectNoLeak } from '@telepath/core/testing';
import { beforeAll, describe, expect, it } from 'vitest';
import { rollout } from './generate.js';
import { poolingWeight } from './compress.js';
import { headForward } from './latent-head.js';
import { promptIds } from './layout.js';
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
    const table = tf.tidy(() => state.lm.params.get('wte')!.arraySync() as number[][]);
    const sep = state.tokenizer.sepId;
    /** The LM and head on input vectors x [U][C] → p(###) and head mean × scale per position. */
    const read = (x: number[][]) =>
      tf.tidy(() => {
        const out = state.lm.forward(tf.tensor3d([x]));
        const mean = tf.mul(headForward(state.head, out.hidden[out.hidden.length - 1]).mean, state.embStd);
        return {
          stop: (tf.softmax(out.logits).arraySync() as number[][][])[0].map((p) => p[sep]),
          mean: (mean.arraySync() as number[][][])[0],
        };
      });
    const sums = () => ({ error: 0, first: 0, nearest: 0, early: 0, end: 0 });
    const teacher = sums();
    const fed = sums();
    let positions = 0;
    for (const r of rows) {
      const ids = r.layout.source;
      const tokens = ids.map((id) => table[id]);
      const tf1 = read(tokens);
      // Self-fed: each reasoning token's input is the teacher-forced head mean that predicted it.
      const sf = read(tokens.map((e, u) => (u > r.chainStart && u <= r.chainEnd ? tf1.mean[u - 1] : e)));
      for (const [sum, got] of [
        [teacher, tf1],
        [fed, sf],
      ] as const) {
        for (let i = r.chainStart; i < r.chainEnd; i++) {
          const target = table[ids[i + 1]];
          const m = got.mean[i];
          const error = Math.hypot(...m.map((v, j) => v - target[j])) / Math.hypot(...target);
          sum.error += error;
          if (i === r.chainStart) sum.first += error;
          const dist = table.map((e) => Math.hypot(...m.map((v, j) => v - e[j])));
          if (dist.indexOf(Math.min(...dist)) === ids[i + 1]) sum.nearest += 1;
          sum.early += got.stop[i];
        }
        sum.end += got.stop[r.chainEnd];
      }
      positions += r.chainEnd - r.chainStart;
    }
    expect(probe.questions).toBe(3);
    expect(probe.groups).toBeCloseTo(positions / 3, 9);
    for (const [got, want] of [
      [probe.teacherForced, teacher],
      [probe.selfFed, fed],
    ] as const) {
      expect(got.latentError).toBeCloseTo(want.error / positions, 4);
      expect(got.firstLatentError).toBeCloseTo(want.first / 3, 4);
      expect(got.nearestToken).toBeCloseTo(want.nearest / positions, 9);
      expect(got.stopEarly).toBeCloseTo(want.early / positions, 5);
      expect(got.stopAtEnd).toBeCloseTo(want.end / 3, 5);
    }
    expect(probe.selfFed.latentError).not.toBeCloseTo(probe.teacherForced.latentError, 4);
    expect(probe.freeRunning.stopped).toBeGreaterThanOrEqual(0);
    expect(probe.freeRunning.stopped).toBeLessThanOrEqual(1);
    // The free-running chains read back: each latent fed, greedy from the prompt, as its nearest token.
    const decoded = await rollout(
      state,
      questions.map((ex) => promptIds(state.tokenizer, ex, 1, state.config.speedPrompt)),
      { speed: 1, decoding: 'greedy', temperature: 0, topP: 1, maxNewTokens: 4, rng: new Rng(2) },
    );
    const nearestByHand = (v: Float32Array) => {
      const dist = table.map((e) => Math.hypot(...e.map((x, j) => x - v[j])));
      return dist.indexOf(Math.min(...dist));
    };
    expect(probe.freeRunning.readouts).toEqual(
      rows.map((r, b) => ({
        gold: r.layout.source.slice(r.chainStart + 1, r.chainEnd + 1),
        read: decoded[b].fed.map(nearestByHand),
      })),
    );
    expect(probe.freeRunning.readouts[0].read.length).toBeGreaterThan(0);
    const atTwo = await exposureProbe(state, questions, { speed: 2, maxNewTokens: 4, rng: new Rng(1) });
    expect(atTwo.selfFed.nearestToken).toBeNull();
    expect(atTwo.freeRunning.readouts).toEqual([]);
    await expect(exposureProbe(state, [], { speed: 1, maxNewTokens: 4, rng: new Rng(1) })).rejects.toThrow(
      'colar exposure probe: no questions to probe',
    );
    state.dispose();
  });

  it('speed shift: the first latent and the true first group under the probed and another speed, by hand', async () => {
    const { state, data } = toyState();
    const questions = data.slice(0, 3);
    const table = tf.tidy(() => state.lm.params.get('wte')!.arraySync() as number[][]);
    const C = table[0].length;
    /** Per question at speed c: the head's mean × scale at the opening ###, and the true first group. */
    const firstAt = (c: number) =>
      sftRows(state, questions, c, new Rng(9)).map((r) => {
        const prompt = r.layout.source.slice(0, r.chainStart + 1); // raw tokens up to the opening ###
        const head = tf.tidy(() => {
          const out = state.lm.forward(tf.tensor3d([prompt.map((id) => table[id])]));
          const mean = tf.mul(headForward(state.head, out.hidden[out.hidden.length - 1]).mean, state.embStd);
          return (mean.arraySync() as number[][][])[0][r.chainStart];
        });
        const members = (r.layout.units[r.chainStart + 1] as { members: number[] }).members;
        const w = poolingWeight(members.length, state.config.pooling);
        const gold = Array.from({ length: C }, (_, j) =>
          members.reduce((a, m) => a + w * table[r.layout.source[m]][j], 0),
        );
        return { head, gold };
      });
    const rel = (x: number[], y: number[]) => Math.hypot(...x.map((v, j) => v - y[j])) / Math.hypot(...x);
    const other = state.config.maxCompressionFactor;
    const here = firstAt(1);
    const there = firstAt(other);
    const mean = (k: 'head' | 'gold') => here.reduce((a, h, q) => a + rel(h[k], there[q][k]), 0) / questions.length;
    const probe = await exposureProbe(state, questions, { speed: 1, maxNewTokens: 4, rng: new Rng(1) });
    expect(other).toBeGreaterThan(1);
    expect(probe.speedShift!.other).toBe(other);
    expect(probe.speedShift!.head).toBeCloseTo(mean('head'), 4);
    expect(probe.speedShift!.gold).toBeCloseTo(mean('gold'), 4);
    expect(probe.speedShift!.gold).toBeGreaterThan(0.1);
    expect(
      (await exposureProbe(state, questions, { speed: 3, maxNewTokens: 4, rng: new Rng(1) })).speedShift!.other,
    ).toBe(1);
    state.dispose();
    const single = toyState({ maxCompressionFactor: 1 }).state;
    expect(
      (await exposureProbe(single, questions, { speed: 1, maxNewTokens: 4, rng: new Rng(1) })).speedShift,
    ).toBeNull();
    single.dispose();
  });
});
