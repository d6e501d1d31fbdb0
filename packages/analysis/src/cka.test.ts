import { Rng } from '@telepath/core';
import { expectNoLeak, forEachBackend } from '@telepath/core/testing';
import { describe, expect, it } from 'vitest';
import { ckaMatrix, linearCka } from './cka.js';
import { columnMeans, type Slot } from './slots.js';
import { randomOrthonormal, syntheticSlots } from './testing.js';

function gaussianSlot(name: string, rng: Rng, rows: number, width: number): Slot {
  return { name, rows, width, vectors: rng.normalArray(rows * width) };
}

/** y = s·x·Q + shift for a [C, C] orthogonal Q (rows of x are examples). */
function transform(x: Slot, q: Float64Array, scale: number, shift: number): Slot {
  const C = x.width;
  const out = new Float32Array(x.rows * C);
  for (let r = 0; r < x.rows; r++) {
    for (let j = 0; j < C; j++) {
      let t = 0;
      for (let c = 0; c < C; c++) t += x.vectors[r * C + c] * q[c * C + j];
      out[r * C + j] = scale * t + shift;
    }
  }
  return { ...x, name: `${x.name}'`, vectors: out };
}

/** Float64 reference of the formula ‖ỸᵀX̃‖² / (‖X̃ᵀX̃‖ ‖ỸᵀỸ‖). */
function ckaReference(x: Slot, y: Slot): number {
  const cx = (s: Slot) => {
    const mu = columnMeans(s);
    return Array.from({ length: s.rows }, (_, r) =>
      Array.from({ length: s.width }, (_, c) => s.vectors[r * s.width + c] - mu[c]),
    );
  };
  const a = cx(x);
  const b = cx(y);
  const prod = (u: number[][], v: number[][]) => {
    let f = 0;
    for (let i = 0; i < u[0].length; i++) {
      for (let j = 0; j < v[0].length; j++) {
        let t = 0;
        for (let r = 0; r < u.length; r++) t += u[r][i] * v[r][j];
        f += t * t;
      }
    }
    return f;
  };
  return prod(b, a) / (Math.sqrt(prod(a, a)) * Math.sqrt(prod(b, b)));
}

forEachBackend(
  (backend, ready) => {
    const rng = new Rng(21);
    const x = gaussianSlot('x', rng.fork('x'), 60, 8);
    const y = gaussianSlot('y', rng.fork('y'), 60, 5);

    describe(`linearCka (${backend})`, () => {
      it('matches the float64 formula, is symmetric, and CKA(X, X) = 1', async (ctx) => {
        if (!ready()) return ctx.skip();
        expect(await linearCka(x, y)).toBeCloseTo(ckaReference(x, y), 5);
        expect(await linearCka(y, x)).toBeCloseTo(await linearCka(x, y), 6);
        expect(await linearCka(x, x)).toBeCloseTo(1, 5);
      });

      it('is invariant to orthogonal transforms, isotropic scaling and shifts of either set', async (ctx) => {
        if (!ready()) return ctx.skip();
        const q = randomOrthonormal(rng.fork('q'), 8, 8);
        expect(await linearCka(x, transform(x, q, 3.7, 2))).toBeCloseTo(1, 5);
        expect(await linearCka(transform(x, q, 0.25, -1), y)).toBeCloseTo(await linearCka(x, y), 5);
      });

      it('is not invariant to an anisotropic scaling', async (ctx) => {
        if (!ready()) return ctx.skip();
        const stretched = { ...x, vectors: x.vectors.map((v, i) => (i % 8 === 0 ? 10 * v : v)) };
        expect(await linearCka(x, stretched)).toBeLessThan(0.9);
      });

      it('uses the Gram form when N < widths, with the same value', async (ctx) => {
        if (!ready()) return ctx.skip();
        const a = gaussianSlot('a', rng.fork('ga'), 6, 10);
        const b = gaussianSlot('b', rng.fork('gb'), 6, 12);
        expect(await linearCka(a, b)).toBeCloseTo(ckaReference(a, b), 5);
      });

      it('rejects sets of different example counts and leaks no tensors', async (ctx) => {
        if (!ready()) return ctx.skip();
        await expect(linearCka(x, gaussianSlot('z', rng.fork('z'), 10, 8))).rejects.toThrow(
          /rows must be the same examples/,
        );
        await expectNoLeak(() => linearCka(x, y));
      });
    });

    it(`ckaMatrix equals pairwise linearCka and has a unit diagonal (${backend})`, async (ctx) => {
      if (!ready()) return ctx.skip();
      const t = syntheticSlots({
        slots: 3,
        rows: 80,
        width: 16,
        sharedRank: 2,
        privateRank: 2,
        sharedCorrelation: 0.8,
        seed: 5,
      });
      const m = await expectNoLeak(() => ckaMatrix(t.slots));
      for (let i = 0; i < 3; i++) {
        expect(m[i][i]).toBeCloseTo(1, 5);
        for (let j = 0; j < 3; j++) expect(m[i][j]).toBeCloseTo(await linearCka(t.slots[i], t.slots[j]), 4);
      }
      const independent = await ckaMatrix(
        syntheticSlots({ slots: 3, rows: 80, width: 16, sharedRank: 2, privateRank: 2, sharedCorrelation: 0, seed: 5 })
          .slots,
      );
      expect(m[0][1]).toBeGreaterThan(independent[0][1] + 0.1); // correlated shared coefficients are visible to CKA
    });
  },
  ['cpu', 'wasm'],
);
