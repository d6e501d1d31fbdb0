import { Rng } from '@telepath/core';
import { expectNoLeak, forEachBackend } from '@telepath/core/testing';
import { describe, expect, it } from 'vitest';
import { silhouette, type SilhouetteMetric } from './silhouette.js';
import type { Slot } from './slots.js';

/** Brute-force silhouette over all pairs (the definition, in float64). */
function reference(slots: readonly Slot[], metric: SilhouetteMetric): number {
  const pts = slots.flatMap((s, k) =>
    Array.from({ length: s.rows }, (_, r) => ({ k, v: [...s.vectors.subarray(r * s.width, (r + 1) * s.width)] })),
  );
  const norm = (v: number[]) => Math.sqrt(v.reduce((a, x) => a + x * x, 0));
  const dist = (a: number[], b: number[]) =>
    metric === 'euclidean'
      ? Math.sqrt(a.reduce((t, x, i) => t + (x - b[i]) ** 2, 0))
      : 1 - a.reduce((t, x, i) => t + x * b[i], 0) / (norm(a) * norm(b));
  let total = 0;
  for (const p of pts) {
    const sums = slots.map(() => 0);
    for (const q of pts) if (q !== p) sums[q.k] += dist(p.v, q.v);
    const own = slots[p.k].rows;
    const a = sums[p.k] / (own - 1);
    const b = Math.min(...sums.map((s, k) => (k === p.k ? Infinity : s / slots[k].rows)));
    total += own > 1 ? (b - a) / Math.max(a, b) : 0;
  }
  return total / pts.length;
}

function blob(name: string, rng: Rng, centre: number[], std: number, rows: number): Slot {
  const C = centre.length;
  const vectors = new Float32Array(rows * C);
  for (let r = 0; r < rows; r++) for (let c = 0; c < C; c++) vectors[r * C + c] = centre[c] + std * rng.normal();
  return { name, rows, width: C, vectors };
}

forEachBackend(
  (backend, ready) => {
    const rng = new Rng(8);
    const C = 6;
    const centre = (i: number) => Array.from({ length: C }, (_, c) => (c === i ? 10 : 0));

    describe(`silhouette (${backend})`, () => {
      it('is ≈ 1 for tight, well-separated clusters, on both metrics', async (ctx) => {
        if (!ready()) return ctx.skip();
        const slots = [0, 1, 2].map((i) => blob(`s${i}`, rng.fork(`sep${i}`), centre(i), 0.1, 40));
        for (const metric of ['cosine', 'euclidean'] as const) {
          const r = await silhouette(slots, { metric });
          expect(r.score).toBeGreaterThan(0.95);
          r.perSlot.forEach((s) => expect(s).toBeGreaterThan(0.95));
          expect(r.exact).toBe(true);
        }
      });

      it('is ≈ 0 for slots drawn from one distribution', async (ctx) => {
        if (!ready()) return ctx.skip();
        const slots = [0, 1, 2].map((i) =>
          blob(
            `s${i}`,
            rng.fork(`mix${i}`),
            centre(0).map(() => 1),
            1,
            150,
          ),
        );
        for (const metric of ['cosine', 'euclidean'] as const)
          expect(Math.abs((await silhouette(slots, { metric })).score)).toBeLessThan(0.05);
      });

      it('matches the brute-force definition exactly on a small random set', async (ctx) => {
        if (!ready()) return ctx.skip();
        const slots = [
          blob(
            'a',
            rng.fork('ra'),
            centre(0).map((v) => v / 5),
            1,
            17,
          ),
          blob(
            'b',
            rng.fork('rb'),
            centre(1).map((v) => v / 5),
            1,
            9,
          ),
          blob(
            'c',
            rng.fork('rc'),
            centre(2).map((v) => v / 8),
            1.5,
            12,
          ),
        ];
        expect((await silhouette(slots, { metric: 'cosine' })).score).toBeCloseTo(reference(slots, 'cosine'), 10);
        expect((await silhouette(slots, { metric: 'euclidean' })).score).toBeCloseTo(reference(slots, 'euclidean'), 4);
      });

      it('samples Euclidean vectors deterministically by seed and leaks no tensors', async (ctx) => {
        if (!ready()) return ctx.skip();
        const slots = [0, 1].map((i) => blob(`s${i}`, rng.fork(`big${i}`), centre(i), 3, 120));
        const a = await expectNoLeak(() => silhouette(slots, { metric: 'euclidean', maxPerSlot: 50, seed: 1 }));
        const b = await silhouette(slots, { metric: 'euclidean', maxPerSlot: 50, seed: 1 });
        expect(a.exact).toBe(false);
        expect(a.used).toBe(100);
        expect(b.score).toBe(a.score);
        expect(Math.abs(a.score - (await silhouette(slots, { metric: 'euclidean' })).score)).toBeLessThan(0.1);
      });

      it('rejects a single slot and an unknown metric', async (ctx) => {
        if (!ready()) return ctx.skip();
        const s = blob('a', rng, centre(0), 1, 3);
        await expect(silhouette([s])).rejects.toThrow(/at least 2/);
        await expect(silhouette([s, s], { metric: 'manhattan' as SilhouetteMetric })).rejects.toThrow(
          /Expected one of: cosine, euclidean/,
        );
      });
    });
  },
  ['cpu', 'wasm'],
);
