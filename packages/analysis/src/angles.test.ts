import { Rng } from '@telepath/core';
import { expectClose } from '@telepath/core/testing';
import { describe, expect, it } from 'vitest';
import { orthonormalise, principalAngles, subspaceAffinity } from './angles.js';
import { projector } from './slots.js';
import { randomOrthonormal } from './testing.js';

/** Multiply each column of a [C, k] basis by a [C, C] matrix Q: returns Q·U. */
function rotate(q: Float64Array, u: Float64Array, C: number, k: number): Float64Array {
  const out = new Float64Array(C * k);
  for (let a = 0; a < C; a++)
    for (let j = 0; j < k; j++) for (let c = 0; c < C; c++) out[a * k + j] += q[a * C + c] * u[c * k + j];
  return out;
}

/** [C, k] from column vectors. */
function fromColumns(cols: number[][]): Float64Array {
  const C = cols[0].length;
  const k = cols.length;
  const out = new Float64Array(C * k);
  cols.forEach((v, j) => v.forEach((x, c) => (out[c * k + j] = x)));
  return out;
}

describe('principal angles', () => {
  const C = 6;
  const a = 0.3;
  const b = 1.1;
  const e = (i: number, s = 1) => Array.from({ length: C }, (_, c) => (c === i ? s : 0));
  const add = (x: number[], y: number[]) => x.map((v, i) => v + y[i]);
  // span(e0, e1) vs span(cos a·e0 + sin a·e2, cos b·e1 + sin b·e3): angles a and b
  const A = fromColumns([e(0), e(1)]);
  const B = fromColumns([add(e(0, Math.cos(a)), e(2, Math.sin(a))), add(e(1, Math.cos(b)), e(3, Math.sin(b)))]);

  it('recovers the angles of constructed subspaces, ascending', () => {
    expectClose(principalAngles(A, 2, B, 2, C), [a, b], { atol: 1e-12 });
    expectClose(principalAngles(B, 2, A, 2, C), [a, b], { atol: 1e-12 });
  });

  it('is unchanged when both subspaces are rotated by the same orthogonal matrix', () => {
    const q = randomOrthonormal(new Rng(4), C, C);
    expectClose(principalAngles(rotate(q, A, C, 2), 2, rotate(q, B, C, 2), 2, C), [a, b], { atol: 1e-10 });
  });

  it('gives 0 for a subspace and itself (in another basis), π/2 for orthogonal ones, min(ka, kb) angles', () => {
    const { basis: mixed } = orthonormalise(fromColumns([add(e(0), e(1)), add(e(0), e(1, -1))]), C, 2);
    expectClose(principalAngles(A, 2, mixed, 2, C), [0, 0], { atol: 1e-7 });
    expectClose(principalAngles(A, 2, fromColumns([e(4), e(5), e(2)]), 3, C), [Math.PI / 2, Math.PI / 2], {
      atol: 1e-12,
    });
    expect(principalAngles(A, 2, fromColumns([e(0)]), 1, C)).toHaveLength(1);
    expect(principalAngles(A, 2, new Float64Array(0), 0, C)).toEqual([]);
  });

  it('subspace affinity is the mean cos² of the angles', () => {
    expect(subspaceAffinity(projector(A, C, 2), 2, projector(B, C, 2), 2)).toBeCloseTo(
      (Math.cos(a) ** 2 + Math.cos(b) ** 2) / 2,
      12,
    );
    expect(subspaceAffinity(projector(A, C, 2), 2, projector(A, C, 2), 2)).toBeCloseTo(1, 12);
  });

  it('orthonormalise drops dependent columns', () => {
    const { basis, rank } = orthonormalise(fromColumns([e(0), e(0, 2), e(1)]), C, 3);
    expect(rank).toBe(2);
    expectClose(projector(basis, C, 2), projector(A, C, 2), { atol: 1e-12 });
  });
});
