import * as tf from '@tensorflow/tfjs-core';
import { initBackend, Rng } from '@telepath/core';
import { expectNoLeak } from '@telepath/core/testing';
import { beforeAll, describe, expect, it } from 'vitest';
import { mergeEmbeddings, sourceIds } from './compress.js';
import { rollout } from './generate.js';
import { headForward } from './latent-head.js';
import { promptIds, rolloutLayout } from './layout.js';
import { sftLoss, sftRows } from './loss.js';
import { SPEED_TABLE_VARIABLE } from './method.js';
import { openingUnit, unitsForward } from './model.js';
import { toyState } from './testing.js';

beforeAll(async () => {
  await initBackend('cpu', { quiet: true });
});

/** Fill the speed table with distinct values, large enough to move the model: row c − 1 holds speed c's vector. */
function setSpeedTable(table: tf.Variable, seed: number): void {
  const rng = new Rng(seed);
  const [S, C] = table.shape;
  const values = Array.from({ length: S * C }, () => rng.normal() * 0.5);
  tf.tidy(() => table.assign(tf.tensor2d(values, [S, C])));
}

describe('CoLaR speed vectors (not in the paper: config.speedVector)', () => {
  it('are off by default; on, a zero table per speed is trained and checkpointed, and the arm starts as the paper’s', () => {
    const plain = toyState({}, 4);
    expect(plain.state.speedTable).toBeUndefined();
    expect(plain.state.variables().has(SPEED_TABLE_VARIABLE)).toBe(false);
    const withVectors = toyState({ speedVector: true, maxCompressionFactor: 3, compressionFactor: 3 }, 4);
    const table = withVectors.state.speedTable!;
    expect(table.shape).toEqual([3, 16]);
    expect(Array.from(table.dataSync()).every((x) => x === 0)).toBe(true);
    expect(withVectors.state.trainable('sft').has(SPEED_TABLE_VARIABLE)).toBe(true);
    expect(withVectors.state.variables().has(SPEED_TABLE_VARIABLE)).toBe(true);
    // Zero vectors: the same forward pass as the arm without them (same seed, same weights).
    const rows = sftRows(plain.state, plain.data.slice(0, 3), 2, new Rng(1));
    const a = tf.tidy(() =>
      unitsForward(
        plain.state,
        rows.map((r) => r.layout),
        'scaled-sum',
      ).hidden.arraySync(),
    );
    const b = tf.tidy(() =>
      unitsForward(
        withVectors.state,
        rows.map((r) => r.layout),
        'scaled-sum',
      ).hidden.arraySync(),
    );
    expect(b).toEqual(a);
    plain.state.dispose();
    withVectors.state.dispose();
  });

  it("add speed c's vector at the opening ### only: the inputs, by hand, through the plain LM", async () => {
    const { state, data } = toyState({ speedVector: true, maxCompressionFactor: 3, compressionFactor: 3 }, 5);
    setSpeedTable(state.speedTable!, 7);
    const rows = sftRows(state, data.slice(0, 2), 3, new Rng(2));
    const layouts = rows.map((r) => r.layout);
    const got = await expectNoLeak(() => tf.tidy(() => unitsForward(state, layouts, 'scaled-sum').hidden.arraySync()));
    const vector = tf.tidy(() => state.speedTable!.arraySync() as number[][])[2]; // speed 3
    const want = tf.tidy(() => {
      const merged = mergeEmbeddings(state.lm.embed(sourceIds(layouts, state.tokenizer.padId)), layouts, 'scaled-sum');
      const x = merged.arraySync();
      layouts.forEach((l, b) => {
        const u = openingUnit(l, state.tokenizer.sepId);
        expect(u).toBe(rows[b].chainStart);
        x[b][u] = x[b][u].map((v, j) => v + vector[j]);
      });
      const U = x[0].length;
      const mask = tf.tensor2d(
        layouts.flatMap((l) => Array.from({ length: U }, (_, i) => (i < l.units.length ? 1 : 0))),
        [layouts.length, U],
      );
      const out = state.lm.forward(tf.tensor3d(x), { attentionMask: mask });
      return out.hidden[out.hidden.length - 1].arraySync();
    });
    got.forEach((row, b) =>
      row.slice(0, layouts[b].units.length).forEach((h, u) => {
        h.forEach((v, j) => expect(v).toBeCloseTo(want[b][u][j], 5));
      }),
    );
    // Before the opening ### nothing moves (causal); from it on the speed changes the states.
    const plain = tf.tidy(() => {
      const saved = state.speedTable!.arraySync();
      state.speedTable!.assign(tf.zerosLike(state.speedTable!));
      const h = unitsForward(state, layouts, 'scaled-sum').hidden.arraySync();
      state.speedTable!.assign(tf.tensor2d(saved as number[][]));
      return h;
    });
    const start = rows[0].chainStart;
    expect(got[0].slice(0, start)).toEqual(plain[0].slice(0, start));
    expect(got[0][start]).not.toEqual(plain[0][start]);
    expect(got[0][start + 1]).not.toEqual(plain[0][start + 1]);
    state.dispose();
  });

  it('decoding adds the same vector as the teacher-forced pass: greedy latents are the head means over the rollout', async () => {
    const { state, data } = toyState(
      { speedVector: true, maxCompressionFactor: 3, compressionFactor: 3, maxLatents: 4 },
      6,
    );
    setSpeedTable(state.speedTable!, 8);
    const speed = 2;
    const prompts = data.slice(0, 3).map((ex) => promptIds(state.tokenizer, ex, speed, state.config.speedPrompt));
    const o = { speed, decoding: 'greedy' as const, temperature: 0, topP: 1, maxNewTokens: 3, rng: new Rng(0) };
    const rows = await expectNoLeak(() => rollout(state, prompts, o));
    const means = tf.tidy(() => {
      const out = unitsForward(
        state,
        rows.map((r) => rolloutLayout(state.tokenizer, r)),
        'scaled-sum',
      );
      return headForward(state.head, out.hidden).mean.arraySync() as number[][][];
    });
    for (const [b, r] of rows.entries()) {
      expect(r.speed).toBe(speed);
      expect(r.latents.length).toBeGreaterThan(0);
      r.latents.forEach((z, k) => {
        const mean = means[b][r.prompt.length - 1 + k]; // latent k is predicted at position p + k − 1
        z.forEach((v, j) => expect(v).toBeCloseTo(mean[j], 4));
      });
    }
    // Another speed's vector at the same prompt changes the first latent.
    const other = await rollout(state, prompts, { ...o, speed: 1 });
    expect(Array.from(other[0].latents[0])).not.toEqual(Array.from(rows[0].latents[0]));
    state.dispose();
  });

  it("the SFT loss trains the batch's speed row only", async () => {
    const { state, data } = toyState({ speedVector: true, maxCompressionFactor: 3, compressionFactor: 3 }, 7);
    const table = state.speedTable!;
    const grads = await expectNoLeak(() =>
      tf.tidy(() => {
        const { grads } = tf.variableGrads(() => sftLoss(state, data.slice(0, 4), 2, new Rng(3)), [table]);
        return grads[table.name].arraySync() as number[][];
      }),
    );
    expect(grads[1].some((g) => Math.abs(g) > 1e-6)).toBe(true);
    expect(grads[0].every((g) => g === 0)).toBe(true);
    expect(grads[2].every((g) => g === 0)).toBe(true);
    state.dispose();
  });

  it('refuse a speed the table does not hold and a row without its speed, saying which', () => {
    const { state, data } = toyState({ speedVector: true, maxCompressionFactor: 2, compressionFactor: 2 }, 8);
    const rows = sftRows(state, data.slice(0, 1), 3, new Rng(1));
    expect(() => tf.tidy(() => unitsForward(state, [rows[0].layout], 'scaled-sum'))).toThrow(
      /speed 3 has no speed vector \(this arm learnt speeds 1\.\.2\)/,
    );
    const { speed: _, ...noSpeed } = rows[0].layout;
    expect(() => tf.tidy(() => unitsForward(state, [noSpeed], 'scaled-sum'))).toThrow(/row 0 has no speed/);
    state.dispose();
  });
});
