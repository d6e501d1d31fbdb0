/**
 * BatchMatMul and _FusedMatMul on native vs cpu: every transpose variant, awkward and batched
 * shapes. Errors are relative to |A|·|B| (float32 sgemm vs the cpu backend's double sums).
 */
import * as tf from '@tensorflow/tfjs';
import { beforeAll, describe, expect, it } from 'vitest';
import { AWKWARD_SIZES, maxRelError, randomValues, runOn, setupNative } from './testing.js';

const TOL = 1e-5;
const setup = await setupNative(tf);
if (!setup.available) console.warn(`[backend-native] skipping native tests: ${setup.reason}`);

describe.skipIf(!setup.available)('native matmul', () => {
  beforeAll(() => tf.enableProdMode());

  async function check(aShape: number[], bShape: number[], tA: boolean, tB: boolean, seed: number) {
    const av = randomValues(
      seed,
      aShape.reduce((p, d) => p * d, 1),
    );
    const bv = randomValues(
      seed + 1,
      bShape.reduce((p, d) => p * d, 1),
    );
    const f = () => tf.matMul(tf.tensor(av, aShape), tf.tensor(bv, bShape), tA, tB);
    const [want, scale] = await runOn(tf, 'cpu', () => [
      f(),
      tf.matMul(tf.abs(tf.tensor(av, aShape)), tf.abs(tf.tensor(bv, bShape)), tA, tB),
    ]);
    const [got] = await runOn(tf, 'native', f);
    const { err } = maxRelError(got, want, scale);
    expect(err, `matMul [${aShape}]${tA ? 'ᵀ' : ''} · [${bShape}]${tB ? 'ᵀ' : ''}`).toBeLessThan(TOL);
  }

  it('matches cpu for every transpose variant over awkward sizes', async () => {
    let seed = 1;
    for (const m of AWKWARD_SIZES)
      for (const k of AWKWARD_SIZES)
        for (const n of [1, 33]) {
          for (const tA of [false, true])
            for (const tB of [false, true]) await check(tA ? [k, m] : [m, k], tB ? [n, k] : [k, n], tA, tB, seed++);
        }
  });

  it('matches cpu for batched and broadcast batches', async () => {
    await check([3, 7, 33], [3, 33, 5], false, false, 11);
    await check([2, 3, 33, 7], [2, 3, 5, 33], true, true, 12);
    await check([1, 7, 33], [4, 33, 9], false, false, 13);
    await check([4, 7, 33], [33, 9], false, false, 14);
    await check([129, 65], [129, 129], true, false, 15); // large enough to split across threads
    await check([8, 64, 32], [8, 64, 32], false, true, 16);
  });

  it('handles K = 0 and empty outputs', async () => {
    const f = () => tf.matMul(tf.zeros([3, 0]), tf.zeros([0, 4]));
    const [got] = await runOn(tf, 'native', f);
    expect(Array.from(got)).toEqual(new Array(12).fill(0));
    const [empty] = await runOn(tf, 'native', () => tf.matMul(tf.zeros([0, 5]), tf.ones([5, 2])));
    expect(empty.length).toBe(0);
  });

  it('fused matmul adds bias and applies activations', async () => {
    const a = randomValues(21, 7 * 33);
    const b = randomValues(22, 33 * 5);
    const bias = randomValues(23, 5);
    for (const activation of ['linear', 'relu', 'relu6', 'elu', 'sigmoid', 'leakyrelu'] as const) {
      for (const [tA, tB] of [
        [false, false],
        [true, true],
      ]) {
        const f = () =>
          tf.fused.matMul({
            a: tf.tensor(a, tA ? [33, 7] : [7, 33]),
            b: tf.tensor(b, tB ? [5, 33] : [33, 5]),
            transposeA: tA,
            transposeB: tB,
            bias: tf.tensor(bias, [5]),
            activation,
            leakyreluAlpha: 0.1,
          });
        const [want] = await runOn(tf, 'cpu', f);
        const [got] = await runOn(tf, 'native', f);
        expect(maxRelError(got, want).err, activation).toBeLessThan(TOL);
      }
    }
  });

  it('errors like cpu on mismatched inner dimensions', async () => {
    await tf.setBackend('native');
    expect(() => tf.matMul(tf.ones([2, 3]), tf.ones([4, 2]))).toThrow(/inner shapes|must match/);
  });
});
