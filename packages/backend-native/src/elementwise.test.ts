/** Elementwise kernels on native vs cpu: broadcasting binary ops, comparisons, unary ops, casts, AddN, fills, fused GELU. */
import * as tf from '@tensorflow/tfjs';
import { describe, expect, it } from 'vitest';
import { FUSED_KERNELS } from './index.js';
import { maxRelError, randomValues, runOn, setupNative } from './testing.js';

const TOL = 1e-5;
const setup = await setupNative(tf);
if (!setup.available) console.warn(`[backend-native] skipping native tests: ${setup.reason}`);

/** Pairs of shapes that broadcast, including size-1 and scalar cases. */
const BROADCAST: [number[], number[]][] = [
  [[129], [129]],
  [[7, 33], [33]],
  [
    [7, 33],
    [7, 1],
  ],
  [
    [1, 7, 1],
    [5, 1, 129],
  ],
  [[33, 7], []],
  [[], [7, 33]],
  [
    [2, 1, 33, 1],
    [1, 7, 1, 5],
  ],
  [[1], [1]],
  [
    [129, 257],
    [129, 257],
  ], // large enough to split across threads
];

async function both(f: () => tf.Tensor | tf.Tensor[]) {
  const want = await runOn(tf, 'cpu', f);
  const got = await runOn(tf, 'native', f);
  return { want, got };
}

const size = (s: number[]) => s.reduce((p, d) => p * d, 1);

describe.skipIf(!setup.available)('native elementwise', () => {
  it('binary ops broadcast like cpu', async () => {
    const ops: [string, (a: tf.Tensor, b: tf.Tensor) => tf.Tensor][] = [
      ['add', tf.add],
      ['sub', tf.sub],
      ['mul', tf.mul],
      ['div', tf.div],
      ['maximum', tf.maximum],
      ['minimum', tf.minimum],
      ['squaredDifference', tf.squaredDifference],
      ['pow', (a, b) => tf.pow(tf.abs(a), b)],
    ];
    let seed = 100;
    for (const [sa, sb] of BROADCAST) {
      const av = randomValues(seed++, size(sa), -2, 2);
      const bv = randomValues(seed++, size(sb), 0.5, 2);
      for (const [name, op] of ops) {
        const { want, got } = await both(() => op(tf.tensor(av, sa), tf.tensor(bv, sb)));
        expect(maxRelError(got[0], want[0]).err, `${name} [${sa}] [${sb}]`).toBeLessThan(TOL);
      }
    }
  });

  it('comparisons give the same bools', async () => {
    const av = Float32Array.from([1, 2, 3, NaN, -0, 5, 5, 7]);
    const bv = Float32Array.from([1, 3, 2, NaN, 0, 5, 6, 6]);
    for (const op of [tf.equal, tf.notEqual, tf.greater, tf.greaterEqual, tf.less, tf.lessEqual]) {
      const { want, got } = await both(() => [
        op(tf.tensor(av, [2, 4]), tf.tensor(bv, [2, 4])),
        op(tf.tensor(av, [2, 4]), tf.scalar(5)),
      ]);
      expect(Array.from(got[0])).toEqual(Array.from(want[0]));
      expect(Array.from(got[1])).toEqual(Array.from(want[1]));
    }
  });

  it('unary ops match cpu', async () => {
    const x = randomValues(7, 33 * 129, -9, 9);
    const pos = randomValues(8, 33 * 129, 0.01, 50);
    const cases: [string, () => tf.Tensor][] = [
      ['neg', () => tf.neg(tf.tensor(x))],
      ['exp', () => tf.exp(tf.tensor(x))],
      ['tanh', () => tf.tanh(tf.tensor(x))],
      ['tanh small', () => tf.tanh(tf.mul(tf.tensor(x), 1e-3))],
      ['sigmoid', () => tf.sigmoid(tf.tensor(x))],
      ['erf', () => tf.erf(tf.tensor(x))],
      ['elu', () => tf.elu(tf.tensor(x))],
      ['relu', () => tf.relu(tf.tensor(x))],
      ['relu6', () => tf.relu6(tf.tensor(x))],
      ['leakyRelu', () => tf.leakyRelu(tf.tensor(x), 0.1)],
      ['step', () => tf.step(tf.tensor(x), 0.3)],
      ['clip', () => tf.clipByValue(tf.tensor(x), -1, 2)],
      ['abs', () => tf.abs(tf.tensor(x))],
      ['square', () => tf.square(tf.tensor(x))],
      ['log', () => tf.log(tf.tensor(pos))],
      ['sqrt', () => tf.sqrt(tf.tensor(pos))],
      ['rsqrt', () => tf.rsqrt(tf.tensor(pos))],
      ['reciprocal', () => tf.reciprocal(tf.tensor(pos))],
    ];
    for (const [name, f] of cases) {
      const { want, got } = await both(f);
      expect(maxRelError(got[0], want[0]).err, name).toBeLessThan(TOL);
    }
  });

  it('exp and tanh handle extremes, NaN and infinities', async () => {
    const x = Float32Array.from([
      -200,
      -103.9,
      -87.5,
      -20,
      -1e-8,
      0,
      1e-8,
      0.549,
      0.551,
      20,
      88.5,
      88.8,
      200,
      NaN,
      Infinity,
      -Infinity,
    ]);
    const { want, got } = await both(() => [tf.exp(tf.tensor(x)), tf.tanh(tf.tensor(x))]);
    expect(maxRelError(got[0], want[0]).err, 'exp').toBeLessThan(TOL);
    expect(maxRelError(got[1], want[1]).err, 'tanh').toBeLessThan(TOL);
  });

  it('casts, AddN and fills', async () => {
    const ints = Int32Array.from([3, -1, 0, 7, 1 << 20]);
    const { want, got } = await both(() => {
      const f = tf.cast(tf.tensor(ints, [5], 'int32'), 'float32');
      const b = tf.cast(tf.greater(f, 0), 'float32');
      return [
        tf.mul(f, 2),
        tf.add(b, 0.5),
        tf.addN([f, tf.ones([5]), tf.fill([5], 2.5)]),
        tf.zerosLike(f),
        tf.onesLike(f),
      ];
    });
    got.forEach((g, i) => expect(Array.from(g), `output ${i}`).toEqual(Array.from(want[i])));
  });

  it('fused tanh-GELU and its gradient match the formula in double precision', async () => {
    // The composed float32 formula loses digits in the negative tail (1 + tanh z cancels), so the
    // reference is the formula evaluated in double.
    const x = randomValues(31, 7 * 129, -6, 6);
    const dy = randomValues(32, 7 * 129);
    const k = Math.sqrt(2 / Math.PI);
    const c = 0.044715;
    const want = Float64Array.from(x, (v) => 0.5 * v * (1 + Math.tanh(k * (v + c * v ** 3))));
    const wantGrad = Float64Array.from(x, (v, i) => {
      const t = Math.tanh(k * (v + c * v ** 3));
      return dy[i] * (0.5 * (1 + t) + 0.5 * v * (1 - t * t) * k * (1 + 3 * c * v * v));
    });
    const fused = (t: tf.Tensor) => tf.engine().runKernel(FUSED_KERNELS.geluTanh, { x: t }) as tf.Tensor;
    const got = await runOn(tf, 'native', () => {
      const t = tf.tensor(x, [7, 129]);
      return [fused(t), tf.grad((u: tf.Tensor) => tf.sum(tf.mul(fused(u), tf.tensor(dy, [7, 129]))))(t)];
    });
    expect(maxRelError(got[0], want).err, 'gelu').toBeLessThan(TOL);
    expect(maxRelError(got[1], wantGrad).err, 'gelu gradient').toBeLessThan(TOL);
  });
});
