/**
 * Test helpers for every package: a tiny LM config, leak and closeness checks, and a way to run
 * one test body on every available backend. Import from '@telepath/core/testing' in tests only.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import * as tf from '@tensorflow/tfjs-core';
import { beforeAll, describe, expect } from 'vitest';
import { initBackend, type BackendCandidate } from './backend.js';
import type { Example } from './method.js';
import { Rng } from './rng.js';
import { TinyLm, type LmConfig } from './tiny-lm.js';
import { Tokenizer } from './tokenizer.js';

/** A model small enough for gradient checks on the cpu backend. */
export const tinyLmConfig: LmConfig = {
  vocabSize: 16,
  contextLength: 16,
  positions: 'learned',
  layers: 2,
  heads: 2,
  width: 8,
  mlpRatio: 4,
  dropout: 0,
  layerNormEps: 1e-5,
  initStd: 0.2,
};

export function tinyLm(overrides: Partial<LmConfig> = {}, seed = 0): TinyLm {
  return new TinyLm({ ...tinyLmConfig, ...overrides }, new Rng(seed));
}

/** Tokenizer over lowercase letters, digits, spaces and basic punctuation. */
export function charTokenizer(): Tokenizer {
  return Tokenizer.build([
    'abcdefghijklmnopqrstuvwxyz',
    ' a b c d e f g h i j k l m n o p q r s t u v w x y z',
    '0123456789 0 1 2 3 4 5 6 7 8 9',
    '+-*/=().,:?!',
  ]);
}

/** Toy task for method tests: "add a b" with the one step "a+b=s" and the sum as answer (a, b < 5). */
export function toyAdditionExamples(n: number, seed = 1): Example[] {
  const rng = new Rng(seed);
  return Array.from({ length: n }, (_, i) => {
    const a = rng.int(5);
    const b = rng.int(5);
    return { id: `t${i}`, question: `add ${a} ${b}`, steps: [`${a}+${b}=${a + b}`], answer: String(a + b) };
  });
}

/** Runs fn and fails if it leaves more than `allowed` new tensors alive (its returned tensors count). */
export async function expectNoLeak<T>(fn: () => T | Promise<T>, o: { allowed?: number } = {}): Promise<T> {
  const before = tf.memory().numTensors;
  const result = await fn();
  const after = tf.memory().numTensors;
  expect(after - before, `tensor count grew by ${after - before}`).toBeLessThanOrEqual(o.allowed ?? 0);
  return result;
}

/** Element-wise |a − b| ≤ atol + rtol·|b|, with the worst index in the failure message. */
export function expectClose(
  a: tf.Tensor | ArrayLike<number> | number,
  b: tf.Tensor | ArrayLike<number> | number,
  o: { rtol?: number; atol?: number } = {},
): void {
  const av = toArray(a);
  const bv = toArray(b);
  expect(av.length, 'length').toBe(bv.length);
  const rtol = o.rtol ?? 1e-5;
  const atol = o.atol ?? 1e-6;
  let worst = -1;
  let worstExcess = 0;
  for (let i = 0; i < av.length; i++) {
    const excess = Math.abs(av[i] - bv[i]) - (atol + rtol * Math.abs(bv[i]));
    if (!(excess <= 0) && (worst < 0 || excess > worstExcess || Number.isNaN(excess))) {
      worst = i;
      worstExcess = excess;
    }
  }
  if (worst >= 0)
    expect.fail(`values differ at index ${worst}: ${av[worst]} vs ${bv[worst]} (rtol ${rtol}, atol ${atol})`);
}

/**
 * Relative error of `actual` against `expected`: max |a − b| / max |b| ('max', for values) or
 * ‖a − b‖₂ / ‖b‖₂ ('l2', for gradients, whose single entries may cancel to rounding noise).
 * Returns the absolute error when `expected` is all zeros.
 */
export function relativeError(
  actual: tf.Tensor | ArrayLike<number>,
  expected: tf.Tensor | ArrayLike<number>,
  norm: 'max' | 'l2' = 'max',
): number {
  const a = toArray(actual);
  const b = toArray(expected);
  if (a.length !== b.length) return Infinity;
  let diff = 0;
  let scale = 0;
  for (let i = 0; i < b.length; i++) {
    const d = Math.abs(a[i] - b[i]);
    if (Number.isNaN(d)) return Infinity;
    if (norm === 'max') {
      diff = Math.max(diff, d);
      scale = Math.max(scale, Math.abs(b[i]));
    } else {
      diff += d * d;
      scale += b[i] * b[i];
    }
  }
  if (norm === 'l2') [diff, scale] = [Math.sqrt(diff), Math.sqrt(scale)];
  return scale === 0 ? diff : diff / scale;
}

function toArray(x: tf.Tensor | ArrayLike<number> | number): ArrayLike<number> {
  if (typeof x === 'number') return [x];
  if (x instanceof tf.Tensor) return x.dataSync() as Float32Array;
  return x;
}

/**
 * Point the Vulkan loader at the software driver scripts/setup.sh unpacks (lavapipe, Mesa from
 * bookworm-backports) unless VK_DRIVER_FILES is already set. Returns the ICD json used, or null.
 * The loader reads the variable when Dawn creates its instance, so setting it here is enough.
 */
export function useLavapipeIfInstalled(env: NodeJS.ProcessEnv = process.env): string | null {
  if (env.VK_DRIVER_FILES) return env.VK_DRIVER_FILES;
  const icd = fileURLToPath(new URL('../../../.cache/lavapipe/lvp_icd.json', import.meta.url));
  if (!existsSync(icd)) return null;
  env.VK_DRIVER_FILES = icd;
  return icd;
}

/**
 * Starts webgpu for a test file (on lavapipe where scripts/setup-lavapipe.sh unpacked it). Returns
 * null when it runs, or why it cannot (no driver Dawn accepts): the tests then skip with that reason.
 */
export async function webgpuSkipReason(label: string): Promise<string | null> {
  useLavapipeIfInstalled();
  try {
    await initBackend('webgpu', { quiet: true });
    return null;
  } catch (e) {
    const reason = (e as Error).message.split('\n').slice(-1)[0].trim();
    console.warn(`[${label}] skipped: ${reason}`);
    return reason;
  }
}

/**
 * Runs `fn` on cpu (the oracle), then on webgpu, checking that the webgpu run leaves no tensor
 * behind; returns both results (plain values: tensors do not move between backends).
 */
export async function onCpuAndWebgpu<T>(fn: (backend: BackendCandidate) => Promise<T>): Promise<{ cpu: T; gpu: T }> {
  await initBackend('cpu', { quiet: true });
  const cpu = await fn('cpu');
  await initBackend('webgpu', { quiet: true });
  const before = tf.memory().numTensors;
  const gpu = await fn('webgpu');
  expect(tf.memory().numTensors - before, 'tensors leaked on webgpu').toBe(0);
  return { cpu, gpu };
}

/** Values of a tensor read asynchronously (works on webgpu, where dataSync fails). */
export async function values(t: tf.Tensor): Promise<number[]> {
  return Array.from(await t.data());
}

/** Backends test bodies run on: cpu (the oracle), wasm, and native when it is installed. */
export const TEST_BACKENDS: BackendCandidate[] = ['cpu', 'wasm', 'native'];

/**
 * Defines one describe block per backend, each starting that backend first. A backend that
 * cannot start (e.g. native without its addon) is reported, and `ready()` returns false so the
 * bodies can `ctx.skip()`.
 */
export function forEachBackend(
  fn: (backend: BackendCandidate, ready: () => boolean) => void,
  backends: BackendCandidate[] = TEST_BACKENDS,
): void {
  for (const b of backends) {
    describe(`on ${b}`, () => {
      let available = false;
      beforeAll(async () => {
        try {
          await initBackend(b, { quiet: true });
          available = true;
        } catch (e) {
          console.warn(
            `[forEachBackend] ${b} unavailable, its tests are skipped: ${(e as Error).message.split('\n').slice(-1)[0].trim()}`,
          );
        }
      });
      fn(b, () => available);
    });
  }
}
export { fixedInitLm, fixedParamValues, fixedPattern } from './fixed-init.js';
export * from './golden.js';
