import * as tf from '@tensorflow/tfjs-core';
import { initBackend, Rng } from '@telepath/core';
import { expectClose, expectNoLeak } from '@telepath/core/testing';
import { beforeAll, describe, expect, it } from 'vitest';
import { chainGroups, compressChain, mergeEmbeddings, poolingWeight, type RowLayout } from './compress.js';

beforeAll(async () => {
  await initBackend('cpu', { quiet: true });
});

describe('chainGroups', () => {
  it('puts ### alone, fills groups of c and leaves a partial last group', () => {
    expect(chainGroups(5, 2)).toEqual([[0], [1, 2], [3, 4], [5]]);
    expect(chainGroups(6, 3)).toEqual([[0], [1, 2, 3], [4, 5, 6]]);
    expect(chainGroups(4, 5)).toEqual([[0], [1, 2, 3, 4]]);
    expect(chainGroups(3, 1)).toEqual([[0], [1], [2], [3]]);
    expect(chainGroups(0, 3)).toEqual([[0]]);
    expect(() => chainGroups(3, 0)).toThrow(/speed c must be an integer ≥ 1/);
  });

  it('shortens the chain to 1 + ceil(n / c) positions', () => {
    for (const n of [1, 7, 12, 25])
      for (const c of [1, 2, 3, 4, 5]) expect(chainGroups(n, c)).toHaveLength(1 + Math.ceil(n / c));
  });
});

describe('merge on hand-made embeddings', () => {
  // Chain [###, r1 … r5] with C = 2: ### = (1, 0), r_i = (i, −i).
  const chain = [
    [1, 0],
    [1, -1],
    [2, -2],
    [3, -3],
    [4, -4],
    [5, -5],
  ];

  it('scaled sum: Σ e / √n per group, ### unchanged, the partial last group scaled by 1/√1', async () => {
    const e = tf.tensor3d([chain], [1, 6, 2]);
    const out = await expectNoLeak(() => compressChain(e, 2, 'scaled-sum'), { allowed: 1 });
    expect(out.shape).toEqual([1, 4, 2]);
    const s2 = Math.SQRT2;
    expectClose(out, [1, 0, 3 / s2, -3 / s2, 7 / s2, -7 / s2, 5, -5]);
    tf.dispose([e, out]);
  });

  it('mean pooling (the -MP ablation) divides by n instead', () => {
    const e = tf.tensor3d([chain], [1, 6, 2]);
    const out = compressChain(e, 4, 'mean');
    expectClose(out, [1, 0, 10 / 4, -10 / 4, 5, -5]); // groups [###], [r1..r4], [r5]
    expect(poolingWeight(4, 'mean')).toBe(0.25);
    expect(poolingWeight(4, 'scaled-sum')).toBe(0.5);
    tf.dispose([e, out]);
  });

  it('keeps the variance of zero-mean embeddings under the scaled sum', () => {
    const n = 4000;
    const e = tf.tensor3d(new Rng(3).normalArray(5 * n + 1, 0.02), [1, 5 * n + 1, 1]); // zero-mean, std 0.02
    const out = compressChain(e, 5, 'scaled-sum');
    const v = (t: tf.Tensor) => tf.tidy(() => tf.moments(t).variance.dataSync()[0]);
    expect(Math.abs(v(tf.slice(out, [0, 1, 0], [1, -1, 1])) / v(e) - 1)).toBeLessThan(0.1);
    tf.dispose([e, out]);
  });

  it('mixes raw tokens, groups and given vectors per row, padding shorter rows with zeros', () => {
    const e = tf.tensor3d(
      [
        [
          [1, 1],
          [2, 2],
          [3, 3],
        ],
        [
          [10, 0],
          [0, 10],
          [0, 0],
        ],
      ],
      [2, 3, 2],
    );
    const rows: RowLayout[] = [
      { source: [0, 0, 0], units: [{ members: [0] }, { members: [1, 2] }, { vector: Float32Array.from([7, 8]) }] },
      { source: [0, 0], units: [{ members: [1] }] },
    ];
    const out = mergeEmbeddings(e, rows, 'scaled-sum');
    const r = Math.SQRT1_2;
    expectClose(out, [1, 1, 5 * r, 5 * r, 7, 8, 0, 10, 0, 0, 0, 0]);
    tf.dispose([e, out]);
  });
});
