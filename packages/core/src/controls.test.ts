import * as tf from '@tensorflow/tfjs-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { initBackend } from './backend.js';
import { applyLatentControl, derangement } from './controls.js';
import { Rng } from './rng.js';
import { expectClose, expectNoLeak } from './testing.js';

beforeAll(async () => {
  await initBackend('cpu', { quiet: true });
});

describe('latent controls', () => {
  const z = () => tf.tensor3d(new Rng(1).normalArray(4 * 3 * 5), [4, 3, 5]); // [B, K, C]

  it('none copies, zero zeroes', async () => {
    const x = z();
    await expectNoLeak(() =>
      tf.tidy(() => {
        expectClose(applyLatentControl(x, 'none', new Rng(0)), x);
        expect(tf.sum(tf.abs(applyLatentControl(x, 'zero', new Rng(0)))).dataSync()[0]).toBe(0);
      }),
    );
    x.dispose();
  });

  it("shuffle gives every example another example's latents", () => {
    const x = z();
    const y = applyLatentControl(x, 'shuffle', new Rng(3));
    const rows = x.arraySync() as number[][][];
    const moved = y.arraySync() as number[][][];
    moved.forEach((m, b) => {
      const src = rows.findIndex((r) => JSON.stringify(r) === JSON.stringify(m));
      expect(src).toBeGreaterThanOrEqual(0);
      expect(src).not.toBe(b);
    });
    tf.dispose([x, y]);
    expect(derangement(1, new Rng(0))).toEqual([0]);
  });

  it("random keeps each latent vector's norm and changes its direction", () => {
    const x = z();
    const y = applyLatentControl(x, 'random', new Rng(5));
    const n = (t: tf.Tensor) => tf.tidy(() => tf.sqrt(tf.sum(tf.mul(t, t), -1)));
    expectClose(n(y), n(x), { rtol: 1e-5 });
    const cos = tf.tidy(() => tf.div(tf.sum(tf.mul(x, y), -1), tf.mul(n(x), n(y))).dataSync());
    expect(Math.max(...Array.from(cos).map(Math.abs))).toBeLessThan(0.99);
    expect(() => applyLatentControl(x, 'flip' as never, new Rng(0))).toThrow(
      /Expected one of: none, zero, shuffle, random/,
    );
    tf.dispose([x, y]);
  });

  it('random on some rows of a batch gives those rows what they get in the whole batch; shuffle refuses rows', async () => {
    const z = tf.randomNormal([4, 3, 5], 0, 2, 'float32', 3) as tf.Tensor3D; // [B, K, C]
    const whole = applyLatentControl(z, 'random', new Rng(1));
    const rows = tf.tensor1d([1, 3], 'int32');
    const some = tf.gather(z, rows);
    const held = applyLatentControl(some, 'random', new Rng(1), { held: [1, 3], of: 4 });
    expect(Array.from(await held.data())).toEqual(Array.from(await tf.gather(whole, rows).data()));
    expect(() => applyLatentControl(some, 'shuffle', new Rng(1), { held: [1, 3], of: 4 })).toThrow(
      /takes no held rows/,
    );
    tf.dispose([z, whole, rows, some, held]);
  });
});
