/**
 * Latent slots as the analysis sees them: one [N, C] float32 matrix per latent position, as a
 * method's `trace()` returns them (`LatentTrace` in @telepath/core). Validation and the small
 * dense helpers every other module shares (symmetric C×C matrices are row-major Float64Arrays).
 */
import type { LatentTrace } from '@telepath/core';

/** One latent slot: `vectors` holds `rows` × `width` values, row-major. */
export type Slot = LatentTrace['slots'][number];

/** Throws unless every slot is a well-formed [N, C] matrix and (optionally) all share C or N. */
export function checkSlots(
  slots: readonly Slot[],
  o: { sameWidth?: boolean; sameRows?: boolean; minRows?: number } = {},
): void {
  if (slots.length === 0) throw new Error('analysis: no slots given');
  for (const s of slots) {
    if (s.vectors.length !== s.rows * s.width)
      throw new Error(`analysis: slot ${s.name} has ${s.vectors.length} values for [${s.rows}, ${s.width}]`);
    if (s.rows < (o.minRows ?? 1))
      throw new Error(`analysis: slot ${s.name} has ${s.rows} rows, at least ${o.minRows ?? 1} needed`);
  }
  const w = slots[0].width;
  const n = slots[0].rows;
  if (o.sameWidth && slots.some((s) => s.width !== w))
    throw new Error(`analysis: slots differ in width (${slots.map((s) => `${s.name}:${s.width}`).join(', ')})`);
  if (o.sameRows && slots.some((s) => s.rows !== n))
    throw new Error(`analysis: slots differ in row count (${slots.map((s) => `${s.name}:${s.rows}`).join(', ')})`);
}

/** Build a slot from rows of numbers (tests and notebooks). */
export function slotFromRows(name: string, rows: readonly (readonly number[])[]): Slot {
  const width = rows[0]?.length ?? 0;
  const vectors = new Float32Array(rows.length * width);
  rows.forEach((r, i) => {
    if (r.length !== width) throw new Error(`slotFromRows ${name}: row ${i} has ${r.length} values, expected ${width}`);
    vectors.set(r, i * width);
  });
  return { name, vectors, rows: rows.length, width };
}

/** Column means of a slot: [C]. */
export function columnMeans(s: Slot): Float64Array {
  const mu = new Float64Array(s.width);
  for (let r = 0; r < s.rows; r++) {
    const off = r * s.width;
    for (let c = 0; c < s.width; c++) mu[c] += s.vectors[off + c];
  }
  for (let c = 0; c < s.width; c++) mu[c] /= s.rows;
  return mu;
}

/** Trace of a row-major C×C matrix. */
export function trace(m: Float64Array, C: number): number {
  let t = 0;
  for (let i = 0; i < C; i++) t += m[i * C + i];
  return t;
}

/** Σ_ab A_ab·B_ab (= tr(AᵀB)); for symmetric A, B this is tr(AB). */
export function frobeniusInner(a: Float64Array, b: Float64Array): number {
  if (a.length !== b.length) throw new Error(`frobeniusInner: sizes ${a.length} and ${b.length} differ`);
  let t = 0;
  for (let i = 0; i < a.length; i++) t += a[i] * b[i];
  return t;
}

/**
 * Projector onto the span of k orthonormal columns: P = U·Uᵀ.
 * @param u [C, k] row-major, orthonormal columns
 * @returns [C, C] row-major
 */
export function projector(u: Float64Array, C: number, k: number): Float64Array {
  const p = new Float64Array(C * C);
  for (let a = 0; a < C; a++) {
    for (let b = a; b < C; b++) {
      let t = 0;
      for (let j = 0; j < k; j++) t += u[a * k + j] * u[b * k + j];
      p[a * C + b] = t;
      p[b * C + a] = t;
    }
  }
  return p;
}

/** Mean of the off-diagonal entries of a square matrix given as rows (NaN entries are skipped). */
export function meanOffDiagonal(m: readonly (readonly number[])[]): number {
  let sum = 0;
  let n = 0;
  m.forEach((row, i) =>
    row.forEach((v, j) => {
      if (i !== j && Number.isFinite(v)) {
        sum += v;
        n++;
      }
    }),
  );
  return n === 0 ? Number.NaN : sum / n;
}
