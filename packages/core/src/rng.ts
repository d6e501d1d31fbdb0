/**
 * Seeded randomness. Every initialiser, dropout mask, sampler and data order in Telepath draws
 * from an `Rng`. Forks are labelled and derived from the parent's seed path, not from its draw
 * position, so adding a new consumer never shifts the numbers another consumer sees:
 *   const init = rng.fork('init'); const data = rng.fork('data');
 * The generator is xoshiro128** seeded through splitmix32 of an FNV-1a hash of the path.
 */

export interface RngState {
  path: string;
  s: [number, number, number, number];
  spare: number | null;
}

export class Rng {
  private s: Uint32Array;
  private spare: number | null = null;

  /** `seed` is any integer (or a path string, used by `fork`). */
  constructor(readonly seed: number | string) {
    if (typeof seed === 'number' && !Number.isInteger(seed))
      throw new Error(`Rng: seed must be an integer, got ${seed}`);
    this.s = seedState(String(seed));
  }

  /** An independent generator for one consumer, determined by this generator's seed and `label`. */
  fork(label: string): Rng {
    if (label === '') throw new Error('Rng.fork: label must be non-empty');
    return new Rng(`${this.seed}/${label}`);
  }

  /** Next raw 32-bit unsigned integer. */
  nextU32(): number {
    const s = this.s;
    const result = Math.imul(rotl(Math.imul(s[1], 5), 7), 9) >>> 0;
    const t = (s[1] << 9) >>> 0;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 11);
    return result;
  }

  /** Uniform in [0, 1) with 32 bits of resolution. */
  float(): number {
    return this.nextU32() / 4294967296;
  }

  /** Uniform integer in [0, n). */
  int(n: number): number {
    if (!Number.isInteger(n) || n <= 0) throw new Error(`Rng.int: n must be a positive integer, got ${n}`);
    // Rejection sampling removes modulo bias.
    const limit = Math.floor(4294967296 / n) * n;
    let x = this.nextU32();
    while (x >= limit) x = this.nextU32();
    return x % n;
  }

  /** Standard normal (Box–Muller, caching the second value). */
  normal(): number {
    if (this.spare !== null) {
      const v = this.spare;
      this.spare = null;
      return v;
    }
    let u = 0;
    while (u === 0) u = this.float();
    const v = this.float();
    const r = Math.sqrt(-2 * Math.log(u));
    this.spare = r * Math.sin(2 * Math.PI * v);
    return r * Math.cos(2 * Math.PI * v);
  }

  /** Laplace(0, b). */
  laplace(b = 1): number {
    const u = this.float() - 0.5;
    return -b * Math.sign(u) * Math.log(1 - 2 * Math.abs(u) + Number.EPSILON);
  }

  /** n draws from N(mean, std²) as a Float32Array. */
  normalArray(n: number, std = 1, mean = 0): Float32Array {
    const out = new Float32Array(n);
    for (let i = 0; i < n; i++) out[i] = mean + std * this.normal();
    return out;
  }

  /** n draws from U[lo, hi) as a Float32Array. */
  uniformArray(n: number, lo = 0, hi = 1): Float32Array {
    const out = new Float32Array(n);
    for (let i = 0; i < n; i++) out[i] = lo + (hi - lo) * this.float();
    return out;
  }

  /** In-place Fisher–Yates shuffle; returns the array. */
  shuffle<T>(items: T[]): T[] {
    for (let i = items.length - 1; i > 0; i--) {
      const j = this.int(i + 1);
      [items[i], items[j]] = [items[j], items[i]];
    }
    return items;
  }

  /** One element chosen uniformly. */
  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error('Rng.pick: empty list');
    return items[this.int(items.length)];
  }

  /** An integer seed for TF.js ops that take one (`tf.randomUniform(..., seed)`). */
  tfSeed(): number {
    return this.nextU32() & 0x7fffffff;
  }

  /** Serialisable state (for checkpoints). */
  state(): RngState {
    return { path: String(this.seed), s: [this.s[0], this.s[1], this.s[2], this.s[3]], spare: this.spare };
  }

  /** Restore a state produced by `state()` of a generator with the same seed path. */
  restore(st: RngState): void {
    if (st.path !== String(this.seed))
      throw new Error(`Rng.restore: state is for seed path "${st.path}", this generator is "${this.seed}"`);
    this.s = Uint32Array.from(st.s);
    this.spare = st.spare;
  }
}

function rotl(x: number, k: number): number {
  return ((x << k) | (x >>> (32 - k))) >>> 0;
}

function seedState(path: string): Uint32Array {
  // FNV-1a over the path, then splitmix32 to fill four words (never all zero).
  let h = 0x811c9dc5;
  for (let i = 0; i < path.length; i++) {
    h ^= path.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  const s = new Uint32Array(4);
  let x = h;
  for (let i = 0; i < 4; i++) {
    x = (x + 0x9e3779b9) >>> 0;
    let z = x;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
    s[i] = (z ^ (z >>> 16)) >>> 0;
  }
  if (s[0] === 0 && s[1] === 0 && s[2] === 0 && s[3] === 0) s[0] = 1;
  return s;
}
