/** Reductions, softmax and data-movement kernels on native vs cpu. */
import * as tf from '@tensorflow/tfjs';
import { describe, expect, it } from 'vitest';
import { cpuKernelCalls } from './index.js';
import { maxRelError, randomValues, runOn, setupNative } from './testing.js';

const TOL = 1e-5;
const setup = await setupNative(tf);
if (!setup.available) console.warn(`[backend-native] skipping native tests: ${setup.reason}`);

const size = (s: number[]) => s.reduce((p, d) => p * d, 1);

async function compare(name: string, f: () => tf.Tensor | tf.Tensor[], scale?: () => tf.Tensor | tf.Tensor[]) {
  const want = await runOn(tf, 'cpu', f);
  const got = await runOn(tf, 'native', f);
  const scales = scale ? await runOn(tf, 'cpu', scale) : [];
  got.forEach((g, i) => expect(maxRelError(g, want[i], scales[i]).err, `${name} output ${i}`).toBeLessThan(TOL));
}

describe.skipIf(!setup.available)('native reductions and softmax', () => {
  const shapes = [[129], [7, 33], [33, 1, 7], [2, 7, 33, 5], [1, 129, 1], [257, 129]];
  it('sum, mean, max, min, prod over every axis set', async () => {
    let seed = 300;
    for (const shape of shapes) {
      const x = randomValues(seed++, size(shape), -1, 1);
      const rank = shape.length;
      const axesSets: (number | number[] | undefined)[] = [undefined, -1, 0];
      if (rank >= 3) axesSets.push([0, 2], [1], [0, rank - 1]);
      if (rank >= 2) axesSets.push([0, 1]);
      for (const axes of axesSets) {
        for (const keep of [false, true]) {
          const t = () => tf.tensor(x, shape);
          // Sums are judged against the sum of magnitudes (float32 accumulation order differs).
          await compare(
            `sum/mean [${shape}] axes ${axes}`,
            () => [tf.sum(t(), axes, keep), tf.mean(t(), axes, keep)],
            () => [tf.sum(tf.abs(t()), axes, keep), tf.mean(tf.abs(t()), axes, keep)],
          );
          await compare(`max/min [${shape}] axes ${axes}`, () => [tf.max(t(), axes, keep), tf.min(t(), axes, keep)]);
        }
      }
      const small = randomValues(seed++, size(shape), 0.9, 1.1);
      await compare(`prod [${shape}]`, () => tf.prod(tf.tensor(small, shape), -1));
    }
  });

  it('softmax and logSumExp over the last axis', async () => {
    let seed = 400;
    for (const shape of [
      [7, 129],
      [1, 1],
      [33, 1],
      [2, 3, 7, 64],
      [5, 1000],
    ]) {
      const x = randomValues(seed++, size(shape), -20, 20);
      await compare(`softmax [${shape}]`, () => [
        tf.softmax(tf.tensor(x, shape)),
        tf.logSumExp(tf.tensor(x, shape), -1),
        tf.logSoftmax(tf.tensor(x, shape)),
      ]);
    }
  });
});

describe.skipIf(!setup.available)('native data movement', () => {
  it('transposes every permutation of a rank-4 tensor and awkward rank-2/3 ones', async () => {
    const shape = [2, 3, 5, 7];
    const x = randomValues(500, size(shape));
    const perms: number[][] = [];
    const permute = (p: number[], rest: number[]): void => {
      if (rest.length === 0) perms.push(p);
      else rest.forEach((r, i) => permute([...p, r], [...rest.slice(0, i), ...rest.slice(i + 1)]));
    };
    permute([], [0, 1, 2, 3]);
    for (const perm of perms) await compare(`transpose ${perm}`, () => tf.transpose(tf.tensor(x, shape), perm));
    const big = randomValues(501, 129 * 257);
    await compare('transpose [129,257]', () => tf.transpose(tf.tensor(big, [129, 257])));
    await compare('transpose [1,129,1,257]', () => tf.transpose(tf.tensor(big, [1, 129, 1, 257]), [3, 2, 1, 0]));
    const ints = Int32Array.from({ length: 30 }, (_, i) => i * 7 - 50);
    await compare('transpose int32', () =>
      tf.cast(tf.transpose(tf.tensor(ints, [2, 3, 5], 'int32'), [2, 0, 1]), 'float32'),
    );
    await compare('transpose bool', () =>
      tf.cast(tf.transpose(tf.greater(tf.tensor(ints, [2, 3, 5], 'int32'), 0), [1, 2, 0]), 'float32'),
    );
  });

  it('gather and its gradient (UnsortedSegmentSum) on every axis', async () => {
    const x = randomValues(600, 33 * 7 * 5);
    const idx = Int32Array.from([0, 6, 6, 3, 1, 0, 2]);
    for (const axis of [0, 1, 2]) {
      const shape = [33, 7, 5];
      const ids =
        axis === 0
          ? Int32Array.from([32, 0, 5, 5, 31, 0, 7])
          : axis === 1
            ? idx
            : Int32Array.from([4, 0, 0, 2, 1, 3, 4]);
      const f = () => {
        const t = tf.tensor(x, shape);
        const indices = tf.tensor(ids, [7], 'int32');
        const dy = tf.tensor(
          randomValues(601 + axis, (33 * 7 * 5 * 7) / shape[axis]),
          tf.gather(t, indices, axis).shape,
        );
        return [
          tf.gather(t, indices, axis),
          tf.grad((u: tf.Tensor) => tf.sum(tf.mul(tf.gather(u, indices, axis), dy)))(t),
        ];
      };
      await compare(`gather axis ${axis}`, f);
    }
    const rows = randomValues(602, 2 * 64 * 16);
    await compare('unsortedSegmentSum 2-D ids', () =>
      tf.unsortedSegmentSum(
        tf.tensor(rows, [128, 16]),
        tf.tensor(
          Int32Array.from({ length: 128 }, (_, i) => (i * 37) % 64),
          [128],
          'int32',
        ),
        64,
      ),
    );
  });

  it('rejects out-of-range gather indices like cpu', async () => {
    await tf.setBackend('native');
    expect(() => tf.gather(tf.ones([3, 2]), tf.tensor([0, 3], [2], 'int32'))).toThrow(/GatherV2|index|range/i);
  });

  it('concat and split along every axis', async () => {
    const a = randomValues(700, 7 * 33 * 5);
    const b = randomValues(701, 7 * 33 * 5);
    for (const axis of [0, 1, 2]) {
      await compare(`concat axis ${axis}`, () =>
        tf.concat([tf.tensor(a, [7, 33, 5]), tf.tensor(b, [7, 33, 5]), tf.tensor(a, [7, 33, 5])], axis),
      );
      await compare(`split axis ${axis}`, () =>
        tf.split(tf.tensor(a, [7, 33, 5]), axis === 1 ? [10, 20, 3] : [1, axis === 0 ? 6 : 4], axis),
      );
    }
    const ints = Int32Array.from({ length: 12 }, (_, i) => i);
    await compare('concat int32', () =>
      tf.cast(tf.concat([tf.tensor(ints, [3, 4], 'int32'), tf.tensor(ints, [3, 4], 'int32')], 1), 'float32'),
    );
  });
  it("slice and pad (each the other's gradient) on every axis, natively for float32 and int32", async () => {
    const shape = [3, 7, 5, 4];
    const x = randomValues(800, size(shape));
    const cases: [number[], number[]][] = [
      [
        [0, 0, 0, 0],
        [3, 7, 5, 4],
      ], // whole
      [
        [1, 0, 0, 0],
        [2, 7, 5, 4],
      ], // leading axis only: one run
      [
        [0, 2, 0, 0],
        [3, 4, 5, 4],
      ], // a middle axis, whole trailing axes
      [
        [0, 0, 1, 1],
        [3, 7, 3, 2],
      ], // the last two axes
      [
        [2, 6, 4, 3],
        [1, 1, 1, 1],
      ], // one element
      [
        [0, 3, 0, 0],
        [3, -1, 5, -1],
      ], // -1: to the end
      [
        [1, 2, 0, 0],
        [2, 0, 5, 4],
      ], // empty
    ];
    const before = (await cpuKernelCalls()).Slice ?? 0;
    for (const [begin, sz] of cases) {
      await compare(`slice ${begin} ${sz}`, () => tf.slice(tf.tensor(x, shape), begin, sz));
      await compare(`slice grad ${begin} ${sz}`, () =>
        tf.grad((t: tf.Tensor) => tf.sum(tf.mul(tf.slice(t, begin, sz), 3)))(tf.tensor(x, shape)),
      );
    }
    const paddings: [number, number][][] = [
      [
        [0, 0],
        [0, 0],
        [0, 0],
        [0, 0],
      ],
      [
        [1, 2],
        [0, 0],
        [0, 0],
        [0, 0],
      ],
      [
        [0, 0],
        [3, 1],
        [0, 0],
        [0, 0],
      ],
      [
        [0, 0],
        [0, 0],
        [2, 0],
        [0, 1],
      ],
      [
        [1, 1],
        [1, 1],
        [1, 1],
        [1, 1],
      ],
    ];
    for (const p of paddings)
      for (const value of [0, -2.5]) await compare(`pad ${p} ${value}`, () => tf.pad(tf.tensor(x, shape), p, value));
    const ints = Int32Array.from({ length: 60 }, (_, i) => i - 30);
    await compare('slice and pad int32', () => [
      tf.cast(tf.slice(tf.tensor(ints, [4, 15], 'int32'), [1, 3], [2, 9]), 'float32'),
      tf.cast(
        tf.pad(
          tf.tensor(ints, [4, 15], 'int32'),
          [
            [1, 0],
            [2, 3],
          ],
          7,
        ),
        'float32',
      ),
    ]);
    expect((await cpuKernelCalls()).Slice ?? 0).toBe(before); // every slice above ran natively
    expect((await cpuKernelCalls()).PadV2 ?? 0).toBe(0);
  });
});
