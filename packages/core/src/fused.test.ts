/**
 * Core's fused paths (fused.ts: backend kernels called by name) against its plain-op paths on the
 * same backend, on every available backend: values and gradients within 1e-5 relative at awkward
 * shapes (1, 7, 33, 129), no tensor leaks. Only `native` registers the kernels; elsewhere both
 * paths are the plain ops, and the test checks that no fused kernel is reported.
 */
import * as tf from '@tensorflow/tfjs-core';
import { expect, it } from 'vitest';
import { activeFusedKernels, FUSED_KERNELS, setFusedKernels } from './fused.js';
import { gelu, layerNorm, scaledMaskedSoftmax } from './layers.js';
import { adamWUpdate } from './optim.js';
import { Rng } from './rng.js';
import { expectNoLeak, forEachBackend, relativeError } from './testing.js';

const TOL = 1e-5;
const SIZES = [1, 7, 33, 129];

/** Runs fn with the fused kernels on, then off; returns copies of the outputs of each. */
function bothPaths(fn: () => tf.Tensor[]): { fused: Float32Array[]; plain: Float32Array[] } {
  const run = (on: boolean) => {
    const was = setFusedKernels(on);
    try {
      return tf.tidy(() => fn().map((t) => Float32Array.from(t.dataSync())));
    } finally {
      setFusedKernels(was);
    }
  };
  return { fused: run(true), plain: run(false) };
}

function expectAgree(r: { fused: Float32Array[]; plain: Float32Array[] }, names: string[], what: string): void {
  names.forEach((name, i) => {
    // Values element by element against the tensor's scale; gradients norm-wise (sums over rows).
    const err = relativeError(r.fused[i], r.plain[i], i === 0 ? 'max' : 'l2');
    expect(err, `${name} ${what}: fused vs plain relative error`).toBeLessThan(TOL);
  });
}

const uniform = (rng: Rng, shape: number[], lo = -1, hi = 1) =>
  tf.tensor(
    rng.uniformArray(
      shape.reduce((a, b) => a * b, 1),
      lo,
      hi,
    ),
    shape,
  );

forEachBackend((backend, ready) => {
  it('reports the fused kernels the backend runs (all four on native, none elsewhere)', (ctx) => {
    if (!ready()) return ctx.skip();
    const want = backend === 'native' ? Object.values(FUSED_KERNELS).sort() : [];
    expect(activeFusedKernels().sort()).toEqual(want);
    const was = setFusedKernels(false);
    expect(activeFusedKernels()).toEqual([]);
    setFusedKernels(was);
  });

  it('layerNorm: fused and plain agree, values and gradients (x, g, b)', (ctx) => {
    if (!ready()) return ctx.skip();
    for (const rows of SIZES) {
      for (const C of SIZES) {
        const rng = new Rng(rows * 1000 + C);
        const r = bothPaths(() => {
          const [x, g, b, dy] = [
            uniform(rng.fork('x'), [rows, C], -3, 5),
            uniform(rng.fork('g'), [C], 0.5, 1.5),
            uniform(rng.fork('b'), [C]),
            uniform(rng.fork('dy'), [rows, C]),
          ];
          const f = (u: tf.Tensor, v: tf.Tensor, w: tf.Tensor) => tf.sum(tf.mul(layerNorm(u, v, w, 1e-5), dy));
          return [layerNorm(x, g, b, 1e-5), ...tf.grads(f as (...a: tf.Tensor[]) => tf.Tensor)([x, g, b])];
        });
        expectAgree(r, ['y', 'dx', 'dg', 'db'], `[${rows}, ${C}]`);
      }
    }
  });

  it('gelu: fused and plain agree, values and gradient', (ctx) => {
    if (!ready()) return ctx.skip();
    for (const rows of SIZES) {
      for (const C of [1, 33, 129]) {
        const rng = new Rng(rows * 7 + C);
        const r = bothPaths(() => {
          const [x, dy] = [uniform(rng.fork('x'), [rows, C], -6, 6), uniform(rng.fork('dy'), [rows, C])];
          return [gelu(x), tf.grad((u: tf.Tensor) => tf.sum(tf.mul(gelu(u), dy)))(x)];
        });
        expectAgree(r, ['y', 'dx'], `[${rows}, ${C}]`);
      }
    }
  });

  it('scaledMaskedSoftmax with an attention bias [B, 1, T, S]: fused and plain agree, values and gradient', (ctx) => {
    if (!ready()) return ctx.skip();
    for (const [T, S] of [
      [1, 1],
      [7, 7],
      [7, 33],
      [33, 129],
      [129, 129],
    ]) {
      const [B, H] = [2, 3];
      const rng = new Rng(T * 1000 + S);
      const r = bothPaths(() => {
        const scores = uniform(rng.fork('x'), [B, H, T, S], -4, 4); // [B, H, T, S]
        const dy = uniform(rng.fork('dy'), [B, H, T, S]);
        // Causal with S − T visible prefix keys, and the last key of batch row 1 masked out.
        const allowed = Float32Array.from({ length: B * T * S }, (_, i) => {
          const [b, t, s] = [Math.floor(i / (T * S)), Math.floor(i / S) % T, i % S];
          return s - (S - T) <= t && !(b === 1 && s === S - 1 && S > 1) ? 1 : 0;
        });
        const bias = tf.mul(tf.sub(1, tf.tensor(allowed, [B, 1, T, S])), -1e9); // [B, 1, T, S]
        const f = (u: tf.Tensor) => tf.sum(tf.mul(scaledMaskedSoftmax(u, bias, 0.37), dy));
        return [scaledMaskedSoftmax(scores, bias, 0.37), tf.grad(f)(scores)];
      });
      expectAgree(r, ['probs', 'dscores'], `[2, 3, ${T}, ${S}]`);
    }
  });

  it('adamWUpdate: fused and plain agree, with and without weight decay', (ctx) => {
    if (!ready()) return ctx.skip();
    for (const [n, weightDecay] of [
      [1, 0],
      [33, 0.01],
      [129 * 7, 0.01],
      [129 * 33, 0],
    ]) {
      const rng = new Rng(n);
      const r = bothPaths(() => {
        const [p, m, g] = ['p', 'm', 'g'].map((k) => uniform(rng.fork(k), [n]));
        const v = uniform(rng.fork('v'), [n], 0, 1e-2);
        return adamWUpdate(p, m, v, g, {
          lr: 1e-3,
          beta1: 0.9,
          beta2: 0.999,
          eps: 1e-8,
          weightDecay,
          c1: 1 - 0.9 ** 3,
          c2: 1 - 0.999 ** 3,
        });
      });
      ['param', 'm', 'v'].forEach((name, i) =>
        expect(relativeError(r.fused[i], r.plain[i]), `${name} [${n}] wd ${weightDecay}`).toBeLessThan(TOL),
      );
    }
  });

  it('leaves no tensors behind: forward, gradients, and the optimiser update', async (ctx) => {
    if (!ready()) return ctx.skip();
    const rng = new Rng(3);
    const [x, g, b] = [uniform(rng.fork('x'), [7, 33]), uniform(rng.fork('g'), [33]), uniform(rng.fork('b'), [33])];
    const x4 = tf.reshape(x, [1, 1, 7, 33]);
    const bias = tf.zeros([1, 1, 7, 33]);
    const [p, m, v] = [uniform(rng.fork('p'), [33]), tf.zeros([33]), tf.zeros([33])];
    for (const on of [true, false]) {
      const was = setFusedKernels(on);
      await expectNoLeak(() => tf.dispose([layerNorm(x, g, b, 1e-5), gelu(x), scaledMaskedSoftmax(x4, bias, 0.5)]));
      await expectNoLeak(() =>
        tf.dispose(
          tf.grads(((u: tf.Tensor, w: tf.Tensor, c: tf.Tensor) => tf.sum(gelu(layerNorm(u, w, c, 1e-5)))) as (
            ...a: tf.Tensor[]
          ) => tf.Tensor)([x, g, b]),
        ),
      );
      // Only x on the gradient path (g and b constant): LayerNorm's unused gradients are freed too.
      await expectNoLeak(() =>
        tf.dispose(
          tf.grad((u: tf.Tensor) =>
            tf.sum(scaledMaskedSoftmax(tf.reshape(layerNorm(u, g, b, 1e-5), [1, 1, 7, 33]), bias, 0.5)),
          )(x),
        ),
      );
      await expectNoLeak(() =>
        tf.dispose(
          adamWUpdate(p, m, v, b, {
            lr: 1e-3,
            beta1: 0.9,
            beta2: 0.999,
            eps: 1e-8,
            weightDecay: 0.01,
            c1: 0.1,
            c2: 0.001,
          }),
        ),
      );
      setFusedKernels(was);
    }
    tf.dispose([x, x4, g, b, bias, p, m, v]);
  });
});
