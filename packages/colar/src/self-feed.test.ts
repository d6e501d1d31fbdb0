import * as tf from '@tensorflow/tfjs-core';
import { initBackend, Rng, train } from '@telepath/core';
import { expectNoLeak } from '@telepath/core/testing';
import { beforeAll, describe, expect, it } from 'vitest';
import { headForward } from './latent-head.js';
import { sftLoss, sftRows } from './loss.js';
import { colar } from './method.js';
import { unitsForward } from './model.js';
import { selfFedInputs } from './self-feed.js';
import { TOY_OPTIM, toyState } from './testing.js';

beforeAll(async () => {
  await initBackend('cpu', { quiet: true });
});

const lossValue = (t: tf.Scalar) => {
  const v = t.dataSync()[0];
  t.dispose();
  return v;
};

describe('self-fed SFT inputs (scheduled sampling, not in the paper)', () => {
  it('share 1, greedy: every reasoning group reads the head mean predicted from the true prefix, × the embedding scale', async () => {
    const { state, data } = toyState({ decoding: 'greedy' });
    const batch = data.slice(0, 4);
    const rows = sftRows(state, batch, 1, new Rng(5));
    const fed = await expectNoLeak(() => selfFedInputs(state, rows, 1, new Rng(6)));
    // Computed here one row at a time: the head at position u − 1 of the true inputs.
    rows.forEach((r, b) => {
      const expected = tf.tidy(() => {
        const out = unitsForward(
          state,
          [{ source: r.layout.source, units: r.layout.units.slice(0, -1) }],
          'scaled-sum',
        );
        return tf.mul(headForward(state.head, out.hidden).mean, state.embStd).arraySync() as number[][][];
      })[0];
      const chain = Array.from({ length: r.chainEnd - r.chainStart }, (_, i) => r.chainStart + 1 + i);
      expect([...fed[b].keys()]).toEqual(chain); // never the prompt, the opening ### or the answer
      for (const u of chain) expected[u - 1].forEach((v, j) => expect(fed[b].get(u)![j]).toBeCloseTo(v, 5));
    });
    // The loss reads them: it differs from the teacher-forced one, and no fed input leaves it unchanged.
    const rng = new Rng(7);
    const teacher = lossValue(sftLoss(state, batch, 1, rng));
    expect(
      lossValue(
        sftLoss(
          state,
          batch,
          1,
          rng,
          rows.map(() => new Map()),
        ),
      ),
    ).toBe(teacher);
    const selfFed = lossValue(sftLoss(state, batch, 1, rng, fed));
    expect(Number.isFinite(selfFed)).toBe(true);
    expect(selfFed).not.toBeCloseTo(teacher, 6);
    state.dispose();
  });

  it('share 0.5 replaces about half of the reasoning groups, the same ones for the same seed', async () => {
    const { state, data } = toyState();
    const rows = sftRows(state, data.slice(0, 64), 1, new Rng(1));
    const groups = rows.reduce((n, r) => n + r.chainEnd - r.chainStart, 0);
    const a = await selfFedInputs(state, rows, 0.5, new Rng(2));
    const b = await selfFedInputs(state, rows, 0.5, new Rng(2));
    const chosen = a.reduce((n, m) => n + m.size, 0);
    expect(groups).toBeGreaterThan(150);
    expect(chosen / groups).toBeGreaterThan(0.4);
    expect(chosen / groups).toBeLessThan(0.6);
    expect(a.map((m) => [...m.keys()])).toEqual(b.map((m) => [...m.keys()]));
    expect((await selfFedInputs(state, rows, 0, new Rng(2))).every((m) => m.size === 0)).toBe(true);
    state.dispose();
  });

  it('trains through prepare and loss (finite losses, no leak); a loss without its prepare, or for another batch, throws', async () => {
    const { state, data } = toyState({ selfFeedShare: 0.5 });
    const batch = data.slice(0, 8);
    const res = await train({
      params: state.trainable('sft'),
      rng: new Rng(3),
      config: {
        steps: 2,
        logEvery: 100,
        optim: TOY_OPTIM,
      },
      loss: (at) => colar.loss(state, batch, { step: at.step, phase: 'sft', rng: at.rng }),
      prepare: (at) => colar.prepare!(state, batch, { step: at.step, phase: 'sft', rng: at.rng }),
    });
    expect(res.losses.every(Number.isFinite)).toBe(true);
    const at = { step: 0, phase: 'sft', rng: new Rng(0) };
    await expectNoLeak(async () => {
      await colar.prepare!(state, batch, at);
      tf.tidy(() => {
        colar.loss(state, batch, at);
      });
    });
    expect(() => colar.loss(state, batch, at)).toThrow(/needs the self-fed inputs from prepare/);
    await colar.prepare!(state, batch, at);
    expect(() => colar.loss(state, data.slice(8, 16), at)).toThrow(/prepared for another batch/);
    expect(() =>
      colar.init(
        { lm: state.lm, tokenizer: state.tokenizer, rng: new Rng(0), backend: 'cpu' },
        { ...colar.defaults, selfFeedShare: 1.5 },
      ),
    ).toThrow('colar: selfFeedShare must be in [0, 1], got 1.5');
    state.dispose();
  });
});
