import { Rng } from '@telepath/core';
import { forEachBackend } from '@telepath/core/testing';
import { expect, it } from 'vitest';
import { crossCapture, hOff } from './cross-capture.js';
import { randomOrthonormal, slotInSpan, syntheticSlots } from './testing.js';

/** Columns `cols` of a [C, k] basis, as a [C, cols.length] basis. */
function columns(u: Float64Array, C: number, k: number, cols: number[]): Float64Array {
  const out = new Float64Array(C * cols.length);
  for (let c = 0; c < C; c++) cols.forEach((j, jj) => (out[c * cols.length + jj] = u[c * k + j]));
  return out;
}

it('hOff is the mean of the off-diagonal entries', () => {
  expect(
    hOff([
      [1, 0.2, 0.4],
      [0.6, 1, 0.8],
      [1, 0, 1],
    ]),
  ).toBeCloseTo((0.2 + 0.4 + 0.6 + 0.8 + 1 + 0) / 6, 12);
  expect(hOff([[1]])).toBeNaN();
});

forEachBackend(
  (backend, ready) => {
    const C = 12;
    const rng = new Rng(11);
    const basis = randomOrthonormal(rng.fork('basis'), C, 8); // [C, 8]: two 3-dim spans, two more dims

    it(`identical subspaces give C = 1 everywhere (${backend})`, async (ctx) => {
      if (!ready()) return ctx.skip();
      const u = columns(basis, C, 8, [0, 1, 2]);
      const slots = [0, 1, 2].map((i) => slotInSpan(`s${i}`, rng.fork(`same${i}`), u, C, 3, 200 + 50 * i));
      const r = await crossCapture(slots, { varianceThreshold: 0.999 });
      r.pcas.forEach((p) => expect(p.k).toBe(3));
      r.matrix.flat().forEach((v) => expect(v).toBeCloseTo(1, 4));
      expect(r.hOff).toBeCloseTo(1, 4);
    });

    it(`orthogonal subspaces give C ≈ 0 off the diagonal and 1 on it (${backend})`, async (ctx) => {
      if (!ready()) return ctx.skip();
      const a = slotInSpan('a', rng.fork('a'), columns(basis, C, 8, [0, 1, 2]), C, 3, 300);
      const b = slotInSpan('b', rng.fork('b'), columns(basis, C, 8, [3, 4, 5]), C, 3, 300);
      const r = await crossCapture([a, b], { varianceThreshold: 0.999 });
      expect(r.matrix[0][0]).toBeCloseTo(1, 4);
      expect(r.matrix[1][1]).toBeCloseTo(1, 4);
      expect(Math.abs(r.matrix[0][1])).toBeLessThan(1e-4);
      expect(Math.abs(r.matrix[1][0])).toBeLessThan(1e-4);
      expect(Math.abs(r.hOff)).toBeLessThan(1e-4);
    });

    it(`a subspace holding half of another slot's directions captures about half its variance (${backend})`, async (ctx) => {
      if (!ready()) return ctx.skip();
      const a = slotInSpan('a', rng.fork('ha'), columns(basis, C, 8, [0, 1, 2, 3]), C, 4, 2000);
      const b = slotInSpan('b', rng.fork('hb'), columns(basis, C, 8, [0, 1, 6, 7]), C, 4, 2000);
      const r = await crossCapture([a, b], { varianceThreshold: 0.999 });
      expect(r.matrix[0][1]).toBeGreaterThan(0.45);
      expect(r.matrix[0][1]).toBeLessThan(0.55);
      expect(r.matrix[1][0]).toBeGreaterThan(0.45);
      expect(r.matrix[1][0]).toBeLessThan(0.55);
    });

    it(`synthetic shared/private slots: H_off ≈ shared share of variance (${backend})`, async (ctx) => {
      if (!ready()) return ctx.skip();
      const t = syntheticSlots({
        slots: 4,
        rows: 1500,
        width: 24,
        sharedRank: 3,
        privateRank: 3,
        noise: 0.001,
        seed: 2,
      });
      const r = await crossCapture(t.slots, { varianceThreshold: 0.99 });
      r.pcas.forEach((p) => expect(p.k).toBe(6));
      expect(r.hOff).toBeGreaterThan(0.45);
      expect(r.hOff).toBeLessThan(0.55);
    });

    it(`rejects slots of different widths (${backend})`, async (ctx) => {
      if (!ready()) return ctx.skip();
      const a = slotInSpan('a', rng.fork('w1'), columns(basis, C, 8, [0]), C, 1, 10);
      const b = { name: 'b', rows: 2, width: 3, vectors: new Float32Array(6) };
      await expect(crossCapture([a, b])).rejects.toThrow(/differ in width/);
    });
  },
  ['cpu', 'wasm'],
);
