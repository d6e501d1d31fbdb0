import * as tf from '@tensorflow/tfjs-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { initBackend, Rng } from '@telepath/core';
import { expectClose, expectNoLeak } from '@telepath/core/testing';
import type { Activation, PenaltyKind } from './config.js';
import { decoderJacobian, decoderJacobianFd, jacobianPenalty, sampleColumns } from './jacobian.js';
import { autoencoderLoss, penaltyAt } from './loss.js';
import { decode, type Autoencoder } from './autoencoder.js';
import { tinyAutoencoder, tinyRanges } from './testing.js';

beforeAll(async () => {
  await initBackend('cpu', { quiet: true });
});

const codes = (n: number, Z: number, seed = 1) => tf.tensor2d(new Rng(seed).normalArray(n * Z), [n, Z]);

/** J by reverse mode, one output row at a time: [N, Z, H] (transposed like decoderJacobian). */
function reverseModeJacobian(ae: Autoencoder, z: tf.Tensor2D): Float32Array {
  const [N, Z] = z.shape;
  const H = ae.stateDim;
  const out = new Float32Array(N * Z * H);
  for (let i = 0; i < H; i++) {
    const g = tf.tidy(() =>
      tf.grad((x: tf.Tensor) => tf.sum(tf.slice(decode(ae, x as tf.Tensor2D), [0, i], [N, 1])))(z),
    );
    const v = g.dataSync();
    g.dispose();
    for (let n = 0; n < N; n++) for (let j = 0; j < Z; j++) out[(n * Z + j) * H + i] = v[n * Z + j];
  }
  return out;
}

/** d f / d v[idx] by central differences on a variable. */
function fdOnVariable(v: tf.Variable, idx: number, f: () => number, eps: number): number {
  const orig = v.dataSync().slice();
  const set = (delta: number) => {
    const x = orig.slice();
    x[idx] += delta;
    tf.tidy(() => v.assign(tf.tensor(x, v.shape)));
  };
  set(eps);
  const fp = f();
  set(-eps);
  const fm = f();
  tf.tidy(() => v.assign(tf.tensor(orig, v.shape)));
  return (fp - fm) / (2 * eps);
}

describe('decoder Jacobian', () => {
  for (const act of ['tanh', 'silu', 'leakyRelu'] as Activation[]) {
    it(`analytic J equals reverse-mode J and finite differences (${act})`, () => {
      const ae = tinyAutoencoder({ activation: act });
      const z = codes(4, 3);
      const jt = decoderJacobian(ae, z);
      expect(jt.shape).toEqual([4, 3, 6]);
      expectClose(jt, reverseModeJacobian(ae, z), { rtol: 1e-4, atol: 1e-5 });
      const fd = decoderJacobianFd(ae, z, undefined, 1e-2);
      expectClose(jt, fd, { rtol: 1e-2, atol: 2e-3 });
      tf.dispose([jt, fd, z]);
      ae.dispose();
    });
  }

  it('selected columns are the matching slices of the full Jacobian; linear decoders work', () => {
    const ae = tinyAutoencoder({ decoderHidden: [] });
    const z = codes(3, 3);
    const full = decoderJacobian(ae, z);
    const two = decoderJacobian(ae, z, [0, 2]);
    expectClose(two, tf.gather(full, [0, 2], 1));
    tf.dispose([full, two, z]);
    ae.dispose();
  });

  it('leaks no tensors', async () => {
    const ae = tinyAutoencoder();
    const z = codes(4, 3);
    await expectNoLeak(() => tf.dispose(decoderJacobian(ae, z, [1])));
    await expectNoLeak(() => tf.dispose(decoderJacobianFd(ae, z, [1], 1e-2)));
    const h = codes(8, 6);
    await expectNoLeak(() => {
      const parts = autoencoderLoss(ae, h, { lambda: 0.1, agentRanges: tinyRanges() });
      tf.dispose([parts.total, parts.reconstruction, parts.penalty]);
    });
    tf.dispose([z, h]);
    ae.dispose();
  });
});

describe('Jacobian penalty', () => {
  for (const kind of ['l1', 'group', 'l1+group'] as PenaltyKind[]) {
    it(`gradient w.r.t. decoder weights matches finite differences (${kind})`, () => {
      const ae = tinyAutoencoder({ penalty: kind, groupWeight: 0.5 });
      const z = codes(5, 3, 2);
      const f = () => tf.tidy(() => penaltyAt(ae, z, tinyRanges()).dataSync()[0]);
      const vars = ae.decoder.flatMap((l) => [l.w, l.b]);
      const { grads } = tf.variableGrads(() => penaltyAt(ae, z, tinyRanges()), vars);
      for (const v of vars) {
        const g = grads[v.name]?.dataSync() ?? new Float32Array(v.size); // the output bias does not enter J
        for (const idx of [0, Math.floor(v.size / 2), v.size - 1]) {
          const fd = fdOnVariable(v, idx, f, 1e-3);
          expect(Math.abs(fd - g[idx]), `${v.name}[${idx}]: fd ${fd} vs grad ${g[idx]}`).toBeLessThan(
            2e-3 + 2e-2 * Math.abs(g[idx]),
          );
        }
      }
      tf.dispose([z, ...Object.values(grads)]);
      ae.dispose();
    });
  }

  it('gradient of the whole loss (reconstruction + λ·penalty) matches finite differences for encoder and decoder', () => {
    const ae = tinyAutoencoder({ penalty: 'l1+group' });
    const h = codes(8, 6, 3);
    const o = { lambda: 0.3, agentRanges: tinyRanges() };
    const f = () => tf.tidy(() => autoencoderLoss(ae, h, o).total.dataSync()[0]);
    const vars = [...ae.params.values()];
    const { grads } = tf.variableGrads(() => autoencoderLoss(ae, h, o).total, vars);
    for (const v of vars) {
      const g = grads[v.name].dataSync();
      const idx = Math.floor(v.size / 3);
      const fd = fdOnVariable(v, idx, f, 1e-3);
      expect(Math.abs(fd - g[idx]), `${v.name}[${idx}]: fd ${fd} vs grad ${g[idx]}`).toBeLessThan(
        3e-3 + 3e-2 * Math.abs(g[idx]),
      );
    }
    tf.dispose([h, ...Object.values(grads)]);
    ae.dispose();
  });

  it('the column-sampled estimator is unbiased: its mean over all column subsets is the exact penalty', () => {
    const ae = tinyAutoencoder({ penalty: 'l1+group' }, 6, 4);
    const z = codes(6, 4, 4);
    const o = { kind: 'l1+group' as const, agentRanges: tinyRanges(), latentDim: 4 };
    const value = (cols?: number[]) => tf.tidy(() => jacobianPenalty(decoderJacobian(ae, z, cols), o).dataSync()[0]);
    const exact = value();
    const subsets = [
      [0, 1],
      [0, 2],
      [0, 3],
      [1, 2],
      [1, 3],
      [2, 3],
    ];
    const mean = subsets.reduce((acc, s) => acc + value(s), 0) / subsets.length;
    expect(mean).toBeCloseTo(exact, 5);
    // and random draws of 1 column average to it too
    const rng = new Rng(5);
    let sum = 0;
    const draws = 400;
    for (let t = 0; t < draws; t++) sum += value(sampleColumns(rng, 4, 1));
    expect(Math.abs(sum / draws - exact) / exact).toBeLessThan(0.05);
    // the finite-difference estimator is close to it as well
    const fd = tf.tidy(() => jacobianPenalty(decoderJacobianFd(ae, z, undefined, 1e-2), o).dataSync()[0]);
    expect(Math.abs(fd - exact) / exact).toBeLessThan(1e-2);
    z.dispose();
    ae.dispose();
  });

  it('sampleColumns draws K distinct sorted columns, or all of them', () => {
    const cols = sampleColumns(new Rng(0), 10, 4);
    expect(cols).toHaveLength(4);
    expect(new Set(cols).size).toBe(4);
    expect([...cols].sort((a, b) => a - b)).toEqual(cols);
    expect(sampleColumns(new Rng(0), 5, 0)).toEqual([0, 1, 2, 3, 4]);
  });
});
