/**
 * A tiny LM whose every weight comes from a fixed formula instead of an Rng, for golden tests
 * (house rule 9c): the same config gives bit-identical weights on every machine, whatever seeds,
 * forks or draw orders the rest of the code uses. The formula, per parameter `name` with n
 * elements at flat (row-major) index i = 0..n−1:
 *   u(name, i) = 2 · frac(α·i² + β·i + γ(name)) − 1          ∈ [−1, 1)
 *   α = (√5 − 1)/2, β = √2 − 1 (irrational Weyl steps: the quadratic term decorrelates rows and
 *   columns, so a matrix is not the low-rank pattern a plain sin(a·i + b) would give),
 *   γ(name) = FNV-1a(name) / 2³² (depends on the name only, so adding a parameter shifts no other).
 * Values, following TinyLm's initialiser shape for shape:
 *   matrices and embedding tables   √3 · initStd · u   (uniform with std initStd)
 *   residual projections (…wo, …wproj)   √3 · initStd / √(2L) · u   (GPT-2's 1/√(2L) scaling)
 *   LayerNorm gains (….g)            1 + 0.1 · u
 *   biases (every other vector)      0.1 · initStd · u   (non-zero, so a dropped bias shows)
 * Only multiplication, addition, floor and sqrt are used (correctly rounded in IEEE 754, unlike
 * Math.sin), then rounding to float32: the values are exact and platform-independent.
 */
import * as tf from '@tensorflow/tfjs-core';
import { Rng } from './rng.js';
import { TinyLm, type LmConfig } from './tiny-lm.js';

const ALPHA = (Math.sqrt(5) - 1) / 2;
const BETA = Math.SQRT2 - 1;

/** FNV-1a of a string's UTF-16 code units, as an unsigned 32-bit integer. */
function fnv1a(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

/** u(name, i) for i = 0..n−1: the unit pattern of one parameter, in [−1, 1). */
export function fixedPattern(name: string, n: number): Float64Array {
  const gamma = fnv1a(name) / 4294967296;
  const out = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const x = ALPHA * i * i + BETA * i + gamma;
    out[i] = 2 * (x - Math.floor(x)) - 1;
  }
  return out;
}

/** The fixed values of one LM parameter (see the header), as float32. */
export function fixedParamValues(name: string, shape: number[], c: LmConfig): Float32Array {
  const n = shape.reduce((a, b) => a * b, 1);
  const u = fixedPattern(name, n);
  const last = name.split('.').pop() ?? name;
  let scale: number;
  let offset = 0;
  if (shape.length >= 2)
    scale = Math.sqrt(3) * (last === 'wo' || last === 'wproj' ? c.initStd / Math.sqrt(2 * c.layers) : c.initStd);
  else if (last === 'g') [scale, offset] = [0.1, 1];
  else scale = 0.1 * c.initStd;
  return Float32Array.from(u, (x) => offset + scale * x);
}

/**
 * A TinyLm of `config` with every parameter set by the fixed formula (no Rng involved in the
 * result: the constructor's random draws are all overwritten). Use in golden tests:
 *   const lm = fixedInitLm({ ...tinyLmConfig, vocabSize: tokenizer.size, contextLength: 48 });
 */
export function fixedInitLm(config: Partial<LmConfig> | LmConfig, namePrefix = 'lm'): TinyLm {
  const lm = new TinyLm(config, new Rng('fixed-init'), namePrefix);
  for (const [name, v] of lm.params) {
    const values = fixedParamValues(name, v.shape, lm.config);
    tf.tidy(() => v.assign(tf.tensor(values, v.shape, 'float32')));
  }
  return lm;
}
