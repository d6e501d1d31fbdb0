/**
 * Linear CKA between two sets of representations of the same N examples (docs/method-reference.md §3):
 *   CKA(X, Y) = ‖ỸᵀX̃‖²_F / (‖X̃ᵀX̃‖_F · ‖ỸᵀỸ‖_F),   X̃, Ỹ column-centred
 * — between latent slots, or between Base and Coprocessor states at one layer. Invariant to
 * orthogonal transforms and isotropic scaling of either set, not to general invertible maps.
 * When N is smaller than both widths the equivalent Gram form ⟨X̃X̃ᵀ, ỸỸᵀ⟩ / (‖X̃X̃ᵀ‖ ‖ỸỸᵀ‖) is used.
 */
import * as tf from '@tensorflow/tfjs-core';
import { matMulT, tidy } from '@telepath/core';
import { centredTensor, requireBackend, slotProducts, type SlotProducts } from './products.js';
import { checkSlots, type Slot } from './slots.js';

/** Sum of squares of a tensor, as a scalar tensor. */
function sq(t: tf.Tensor): tf.Scalar {
  return tf.sum(tf.square(t));
}

/** Linear CKA of two representation sets x [N, C₁] and y [N, C₂] (row n of each = example n). */
export async function linearCka(x: Slot, y: Slot): Promise<number> {
  if (x.rows !== y.rows)
    throw new Error(`linearCka: ${x.name} has ${x.rows} rows, ${y.name} has ${y.rows}; rows must be the same examples`);
  checkSlots([x, y], { minRows: 2 });
  requireBackend('linearCka');
  const v = tidy(() => {
    const a = centredTensor(x); // [N, C₁]
    const b = centredTensor(y); // [N, C₂]
    if (x.rows < Math.min(x.width, y.width)) {
      const k = matMulT(a, a, false, true); // [N, N]
      const l = matMulT(b, b, false, true); // [N, N]
      return tf.stack([tf.sum(tf.mul(k, l)), sq(k), sq(l)]); // [3]
    }
    const cross = matMulT(b, a, true, false); // [C₂, C₁]
    const xx = matMulT(a, a, true, false); // [C₁, C₁]
    const yy = matMulT(b, b, true, false); // [C₂, C₂]
    return tf.stack([sq(cross), sq(xx), sq(yy)]); // [3]
  });
  let num: number, nx: number, ny: number;
  try {
    [num, nx, ny] = await v.data();
  } finally {
    v.dispose();
  }
  const den = Math.sqrt(nx) * Math.sqrt(ny);
  return den > 0 ? num / den : Number.NaN;
}

/** [S][S] CKA between every pair of slots from products computed with `cross: true`. */
export function ckaMatrixFromProducts(p: SlotProducts): number[][] {
  const c = p.crossSq;
  if (!c)
    throw new Error(
      'ckaMatrixFromProducts: products lack cross terms; compute them with slotProducts(slots, { cross: true })',
    );
  return c.map((row, i) =>
    row.map((v, j) => {
      const den = Math.sqrt(c[i][i]) * Math.sqrt(c[j][j]);
      return den > 0 ? v / den : Number.NaN;
    }),
  );
}

/** [S][S] linear CKA between every pair of slots (all slots must hold the same N examples and width). */
export async function ckaMatrix(slots: readonly Slot[]): Promise<number[][]> {
  checkSlots(slots, { sameRows: true, sameWidth: true, minRows: 2 });
  return ckaMatrixFromProducts(await slotProducts(slots, { cross: true }));
}
