import { describe, expect, it } from 'vitest';
import { Rng } from '@telepath/core';
import { blockR2, choleskySolver, groupByMask } from './block-r2.js';

/** z [N, 4] Laplace; ẑ = monotone transforms of z's columns in the order `order`. */
function codes(n: number, seed: number, order: number[]) {
  const rng = new Rng(seed);
  const z = Float32Array.from({ length: n * 4 }, () => rng.laplace(1));
  const zHat = new Float32Array(n * 4);
  for (let s = 0; s < n; s++)
    order.forEach((src, c) => (zHat[s * 4 + c] = Math.tanh(z[s * 4 + src]) + 0.3 * z[s * 4 + src]));
  return { z, zHat, n };
}

describe('block R²', () => {
  const order = [2, 3, 0, 1]; // estimated latent c is a function of true latent order[c]
  const train = codes(1500, 1, order);
  const test = codes(500, 2, order);
  const trueMasks = [0b11, 0b11, 0b01, 0b10]; // latents 0, 1 shared by A and B; 2 private to A; 3 to B
  const estMasks = order.map((src) => trueMasks[src]); // structure read off correctly, in estimated order

  it('groups latents by agent set', () => {
    expect(groupByMask(trueMasks, 2)).toEqual([
      { mask: 1, name: 'A', latents: [2] },
      { mask: 2, name: 'B', latents: [3] },
      { mask: 3, name: 'AB', latents: [0, 1] },
    ]);
  });

  it('is ≈ 1 on matching groups and ≈ 0 across independent groups', () => {
    const r = blockR2(train, test, 4, 4, trueMasks, estMasks, 2, new Rng(0));
    expect(r.blockR2).toBeGreaterThan(0.97);
    for (let a = 0; a < 3; a++) {
      for (let b = 0; b < 3; b++) {
        if (a === b) expect(r.matrix[a][b]).toBeGreaterThan(0.97);
        else expect(r.matrix[a][b]).toBeLessThan(0.05);
      }
    }
  });

  it('drops when the recovered structure assigns latents to the wrong groups', () => {
    const wrong = [0b11, 0b11, 0b11, 0b11]; // everything looks shared
    const r = blockR2(train, test, 4, 4, trueMasks, wrong, 2, new Rng(0));
    expect(r.matched[0]).toBe(0); // no estimated group "A"
    expect(r.blockR2).toBeLessThan(0.4);
  });

  it('cholesky solves a small SPD system', () => {
    const a = Float64Array.from([4, 2, 0.4, 2, 5, 1, 0.4, 1, 3]);
    const x = choleskySolver(a, 3)(Float64Array.from([1, 2, 3]));
    const back = [0, 1, 2].map((i) => a[i * 3] * x[0] + a[i * 3 + 1] * x[1] + a[i * 3 + 2] * x[2]);
    back.forEach((v, i) => expect(v).toBeCloseTo(i + 1, 10));
    expect(() => choleskySolver(Float64Array.from([1, 2, 2, 1]), 2)).toThrow(/positive definite/);
  });
});
