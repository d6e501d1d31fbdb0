/**
 * Loads the compiled addon (build/Release/telepath_native.node) and describes its surface.
 * Loading is explicit (`loadAddon()`); importing this module does nothing.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const PACKAGE_NAME = '@telepath/backend-native';
/** How to get the addon built, for messages. */
export const ENABLE_HINT = `apt-get install libopenblas-dev && npm rebuild ${PACKAGE_NAME}`;

const PACKAGE_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
/** The compiled addon; TELEPATH_NATIVE_ADDON overrides the path (tests use it to simulate a missing build). */
export const ADDON_PATH =
  process.env.TELEPATH_NATIVE_ADDON || join(PACKAGE_ROOT, 'build', 'Release', 'telepath_native.node');

export interface AddonInfo {
  threads: number;
  blasThreads: number;
  blasConfig: string;
  /** Instruction set picked at load time for the elementwise loops. */
  isa: string;
  binaryOps: string[];
  compareOps: string[];
  unaryOps: string[];
  reduceOps: string[];
}

/** The native functions. All are synchronous; `out` arrays are written completely. */
export interface NativeAddon {
  info(): AddonInfo;
  setThreads(n: number): number;
  setSpinMicros(us: number): void;
  tuneMalloc(mmapThresholdBytes: number, trimThresholdBytes: number): boolean;
  /** meta: [rank, outDims…, aDims…, bDims…] (input dims padded to rank with leading 1s). */
  binary(op: number, a: Float32Array, b: Float32Array, out: Float32Array, meta: Int32Array): void;
  /** Like binary, with a bool (0/1) output. */
  compare(op: number, a: Float32Array, b: Float32Array, out: Uint8Array, meta: Int32Array): void;
  unary(op: number, x: Float32Array, out: Float32Array, alpha?: number, beta?: number): void;
  addN(xs: Float32Array[], out: Float32Array): void;
  geluGrad(x: Float32Array, dy: Float32Array, dx: Float32Array): void;
  layerNorm(
    x: Float32Array,
    gamma: Float32Array,
    beta: Float32Array,
    y: Float32Array,
    mean: Float32Array,
    rstd: Float32Array,
    cols: number,
    eps: number,
  ): void;
  layerNormGrad(
    dy: Float32Array,
    x: Float32Array,
    gamma: Float32Array,
    mean: Float32Array,
    rstd: Float32Array,
    dx: Float32Array,
    dgamma: Float32Array,
    dbeta: Float32Array,
    cols: number,
  ): void;
  adamw(
    p: Float32Array,
    m: Float32Array,
    v: Float32Array,
    g: Float32Array,
    pOut: Float32Array,
    mOut: Float32Array,
    vOut: Float32Array,
    lr: number,
    beta1: number,
    beta2: number,
    eps: number,
    weightDecay: number,
    c1: number,
    c2: number,
  ): void;
  /** y = softmax(scale·x + bias); meta: [rank, xDims…, biasDims…] (bias padded with leading 1s). */
  scaledMaskedSoftmax(x: Float32Array, bias: Float32Array, y: Float32Array, meta: Int32Array, scale: number): void;
  /** dx = scale·y·(dy − Σ dy·y) over rows of `cols`. */
  softmaxGrad(dy: Float32Array, y: Float32Array, dx: Float32Array, cols: number, scale: number): void;
  /** meta: [rank, dims…, reduceFlags…]. */
  reduce(op: number, x: Float32Array, out: Float32Array, meta: Int32Array): void;
  softmax(x: Float32Array, out: Float32Array, cols: number): void;
  /** meta: [rank, dims…, perm…]; x and out of the same typed-array type. */
  transpose(x: ArrayBufferView, out: ArrayBufferView, meta: Int32Array): void;
  copy2d(
    src: Float32Array | Int32Array,
    srcOffset: number,
    srcStride: number,
    dst: Float32Array | Int32Array,
    dstOffset: number,
    dstStride: number,
    rows: number,
    cols: number,
  ): void;
  /** false when an index is outside [0, axisDim). */
  gather(
    x: Float32Array,
    indices: Int32Array,
    out: Float32Array,
    outer: number,
    axisDim: number,
    inner: number,
  ): boolean;
  segmentSum(
    x: Float32Array,
    segmentIds: Int32Array,
    out: Float32Array,
    rows: number,
    inner: number,
    numSegments: number,
  ): void;
  matmul(
    a: Float32Array,
    b: Float32Array,
    out: Float32Array,
    batchA: number,
    batchB: number,
    m: number,
    n: number,
    k: number,
    transposeA: boolean,
    transposeB: boolean,
  ): void;
  /** A plain cblas_sgemm with OpenBLAS's own threads (benchmark reference). */
  sgemmOpenblas(
    a: Float32Array,
    b: Float32Array,
    out: Float32Array,
    m: number,
    n: number,
    k: number,
    blasThreads: number,
  ): void;
}

export type AddonLoad = { ok: true; addon: NativeAddon } | { ok: false; reason: string };

let cached: AddonLoad | undefined;

/** Loads the addon once; never throws. `reason` is one line saying why and how to enable it. */
export function loadAddon(): AddonLoad {
  if (cached) return cached;
  if (!existsSync(ADDON_PATH)) {
    cached = { ok: false, reason: `addon not built (no ${ADDON_PATH}): ${ENABLE_HINT}` };
    return cached;
  }
  try {
    const addon = createRequire(import.meta.url)(ADDON_PATH) as NativeAddon;
    cached = { ok: true, addon };
  } catch (e) {
    const msg = (e instanceof Error ? e.message : String(e)).split('\n')[0];
    const blas = /openblas/i.test(msg) ? ' (OpenBLAS runtime library missing)' : '';
    cached = { ok: false, reason: `addon failed to load${blas}: ${msg.slice(0, 200)}; to fix: ${ENABLE_HINT}` };
  }
  return cached;
}
