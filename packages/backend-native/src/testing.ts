/**
 * Test helpers: start the `native` and `cpu` backends side by side, run one computation on
 * both, and measure how far apart the results are. Import from '@telepath/backend-native/testing'
 * in tests and benchmarks only.
 */
import type * as tfc from '@tensorflow/tfjs';
import { nativeStatus, register } from './index.js';

type Tf = typeof tfc;

export type NativeSetup = { available: true } | { available: false; reason: string };

/** Registers `native` (if the addon loads) next to the union's `cpu` backend. Never throws for a missing addon. */
export async function setupNative(tf: Tf): Promise<NativeSetup> {
  const status = nativeStatus();
  if (!status.available) return { available: false, reason: status.reason };
  await register(tf);
  return { available: true };
}

/** Runs `fn` on `backend` inside tidy and returns copies of the outputs' values. */
export async function runOn(tf: Tf, backend: string, fn: () => tfc.Tensor | tfc.Tensor[]): Promise<Float32Array[]> {
  if (!(await tf.setBackend(backend))) throw new Error(`backend ${backend} did not start`);
  return tf.tidy(() => {
    const out = fn();
    return (Array.isArray(out) ? out : [out]).map((t) => Float32Array.from(t.dataSync() as ArrayLike<number>));
  });
}

/**
 * Largest relative difference |a − b| / max(|b|, floor), and where it occurs. floor is
 * `scale[i]` when given — for sums and dot products the sum of the magnitudes of the terms
 * (e.g. |A|·|B| for a matmul), the standard bound for float accumulation — else 1e-3 · max|b|,
 * so entries that cancel to near zero are judged against the tensor's scale.
 * NaN must match NaN and infinities must match exactly.
 */
export function maxRelError(
  actual: ArrayLike<number>,
  expected: ArrayLike<number>,
  scale?: ArrayLike<number>,
): { err: number; at: number } {
  if (actual.length !== expected.length) return { err: Infinity, at: -1 };
  let maxAbs = 0;
  for (let i = 0; i < expected.length; i++)
    if (Number.isFinite(expected[i])) maxAbs = Math.max(maxAbs, Math.abs(expected[i]));
  const floor = Math.max(1e-3 * maxAbs, 1e-30);
  let err = 0;
  let at = -1;
  for (let i = 0; i < expected.length; i++) {
    const a = actual[i];
    const b = expected[i];
    let e: number;
    if (Number.isNaN(b) || Number.isNaN(a)) e = Number.isNaN(a) && Number.isNaN(b) ? 0 : Infinity;
    else if (!Number.isFinite(b) || !Number.isFinite(a)) e = a === b ? 0 : Infinity;
    else e = Math.abs(a - b) / Math.max(Math.abs(b), scale ? scale[i] : floor, 1e-30);
    if (e > err) {
      err = e;
      at = i;
    }
  }
  return { err, at };
}

/** Norm-wise relative difference ‖a − b‖₂ / ‖b‖₂ (for gradients, whose single entries may cancel to rounding noise). */
export function normRelError(actual: ArrayLike<number>, expected: ArrayLike<number>): number {
  if (actual.length !== expected.length) return Infinity;
  let diff = 0;
  let norm = 0;
  for (let i = 0; i < expected.length; i++) {
    diff += (actual[i] - expected[i]) ** 2;
    norm += expected[i] ** 2;
  }
  return norm === 0 ? Math.sqrt(diff) : Math.sqrt(diff / norm);
}

/** Seeded uniform values in [lo, hi) (mulberry32). */
export function randomValues(seed: number, n: number, lo = -1, hi = 1): Float32Array {
  let s = seed >>> 0;
  const out = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    out[i] = lo + (((t ^ (t >>> 14)) >>> 0) / 4294967296) * (hi - lo);
  }
  return out;
}

/** Shapes used across the correctness tests: sizes that are not multiples of vector widths. */
export const AWKWARD_SIZES = [1, 7, 33, 129] as const;
