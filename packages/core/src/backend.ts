/**
 * Backend selection. `initBackend()` picks the fastest TensorFlow.js backend that actually
 * starts on this machine, in the order
 *   explicit choice → node-gpu → node → webgpu → native → wasm → cpu,
 * checks `setBackend`'s boolean, catches every failure (a present-but-broken tfjs-node throws
 * a native-addon error, not MODULE_NOT_FOUND), never loads both tfjs-node packages (they
 * register the same backend name), loads the `@tensorflow/tfjs` union once (gradients live
 * there) and applies the wasm fixes when wasm is chosen. `webgpu` (webgpu.ts) is taken by the
default order only on a real GPU adapter, by an explicit choice on any adapter; its kernels are
wrapped by the size guards (size-guard.ts) after the webgpu fixes (webgpu-fixes.ts). Importing this module starts nothing.
 */
import * as tf from '@tensorflow/tfjs-core';
import { installSizeGuards } from './size-guard.js';
import { applyWasmFixes } from './wasm-fixes.js';
import { describeGpuAdapter, prepareWebGPU, type GpuAdapter } from './webgpu.js';
import { applyWebGPUFixes } from './webgpu-fixes.js';

export type BackendCandidate = 'node-gpu' | 'node' | 'webgpu' | 'native' | 'wasm' | 'cpu';
export const BACKEND_CANDIDATES: readonly BackendCandidate[] = ['node-gpu', 'node', 'webgpu', 'native', 'wasm', 'cpu'];

export interface BackendAttempt {
  candidate: BackendCandidate;
  error: string;
}
export interface BackendInfo {
  /** tfjs backend name actually running (`tensorflow`, `native`, `wasm`, `cpu`). */
  backend: string;
  candidate: BackendCandidate;
  /** Candidates tried before the chosen one, each with the reason it was skipped. */
  tried: BackendAttempt[];
  /** Where the order came from. */
  orderSource: 'argument' | 'TELEPATH_BACKEND' | 'default';
  /** The WebGPU adapter, when the backend is `webgpu`. */
  adapter?: GpuAdapter;
  /**
   * The native backend's settings, when it runs: its thread pool, the instruction set its loops
   * picked at load time and OpenBLAS's build and core (DYNAMIC_ARCH picks a kernel per CPU, and a
   * different kernel rounds differently, so the same seed can give other last bits on another CPU).
   */
  native?: NativeSettings;
}

export interface NativeSettings {
  threads: number;
  isa: string;
  blas: string;
}

/**
 * What a native backend package must export (the `native` slot). `register()` registers the
 * backend with the given tfjs-core engine and returns its name, or throws an Error whose message
 * says why it is unavailable and how to enable it.
 */
export interface NativeBackendModule {
  register(tfCore: typeof tf): Promise<string> | string;
  /** What the loaded addon runs with (read after `register`); optional for stand-ins. */
  nativeStatus?():
    { available: true; info: { threads: number; isa: string; blasConfig: string } } | { available: false };
}

/** Package loaders; replaced in tests to simulate missing or broken packages. */
export interface BackendLoaders {
  importModule(name: string): Promise<unknown>;
}
// eslint-disable-next-line no-restricted-syntax -- optional backends are loaded by name; the nx graph has core's implicit edge to backend-native
const DEFAULT_LOADERS: BackendLoaders = { importModule: (name) => import(name) };

export const NATIVE_BACKEND_PACKAGE = '@telepath/backend-native';

let current: BackendInfo | undefined;
let unionLoaded = false;

/** The backend chosen by the last `initBackend()` call, if any. */
export function currentBackend(): BackendInfo | undefined {
  return current;
}

/**
 * Parse a backend order: an argument, else `TELEPATH_BACKEND` (one name or a comma list),
 * else the default order. Unknown names throw with the valid choices.
 */
export function resolveBackendOrder(
  order?: BackendCandidate | BackendCandidate[],
  env: NodeJS.ProcessEnv = process.env,
): { order: BackendCandidate[]; source: BackendInfo['orderSource'] } {
  if (order !== undefined) {
    const list = Array.isArray(order) ? order : [order];
    return { order: validateCandidates(list, 'initBackend argument'), source: 'argument' };
  }
  const fromEnv = env.TELEPATH_BACKEND ?? env.TELEPATH_BACKENDS;
  if (fromEnv && fromEnv.trim() !== '') {
    const list = fromEnv
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s !== '');
    return { order: validateCandidates(list, 'TELEPATH_BACKEND'), source: 'TELEPATH_BACKEND' };
  }
  return { order: [...BACKEND_CANDIDATES], source: 'default' };
}

function validateCandidates(list: string[], where: string): BackendCandidate[] {
  if (list.length === 0)
    throw new Error(`${where}: empty backend list. Expected one or more of: ${BACKEND_CANDIDATES.join(', ')}`);
  for (const name of list) {
    if (!BACKEND_CANDIDATES.includes(name as BackendCandidate)) {
      throw new Error(`${where}: unknown backend "${name}". Expected one of: ${BACKEND_CANDIDATES.join(', ')}`);
    }
  }
  return list as BackendCandidate[];
}

/**
 * Select and start a backend. Safe to call more than once: a second call with the same
 * resolved order returns the running backend.
 */
export async function initBackend(
  order?: BackendCandidate | BackendCandidate[],
  options: { loaders?: BackendLoaders; quiet?: boolean; env?: NodeJS.ProcessEnv } = {},
): Promise<BackendInfo> {
  const loaders = options.loaders ?? DEFAULT_LOADERS;
  const resolved = resolveBackendOrder(order, options.env);
  if (
    current &&
    !options.loaders &&
    resolved.order.includes(current.candidate) &&
    tf.getBackend() === current.backend
  ) {
    const before = resolved.order.indexOf(current.candidate);
    if (before === 0 || resolved.order.slice(0, before).every((c) => current!.tried.some((t) => t.candidate === c)))
      return current;
  }
  await loadUnion(loaders);
  const tried: BackendAttempt[] = [];
  let nodeLoaded = false;
  for (const candidate of resolved.order) {
    try {
      if ((candidate === 'node' || candidate === 'node-gpu') && nodeLoaded) {
        throw new Error('skipped: the other tfjs-node package was already loaded (both register "tensorflow")');
      }
      let adapter: GpuAdapter | undefined;
      const name =
        candidate === 'webgpu'
          ? await prepareWebGPU(loaders, { force: resolved.source !== 'default', env: options.env }).then((a) => {
              adapter = a;
              return 'webgpu';
            })
          : await startCandidate(candidate, loaders, () => {
              nodeLoaded = true;
            });
      const ok = await tf.setBackend(name);
      if (!ok) throw new Error(`tf.setBackend('${name}') returned false`);
      await tf.ready();
      if (name === 'wasm') applyWasmFixes();
      if (name === 'webgpu') applyWebGPUFixes();
      if (adapter) installSizeGuards(name, deviceBindingLimit() ?? adapter.maxStorageBufferBindingSize);
      const native = candidate === 'native' ? await nativeSettings(loaders) : undefined;
      current = {
        backend: tf.getBackend(),
        candidate,
        tried,
        orderSource: resolved.source,
        ...(adapter ? { adapter } : {}),
        ...(native ? { native } : {}),
      };
      if (!options.quiet) console.error(describeBackend(current));
      return current;
    } catch (e) {
      tried.push({ candidate, error: firstLine(e) });
    }
  }
  throw new Error(
    `No TensorFlow.js backend could start (order from ${resolved.source}: ${resolved.order.join(', ')}):\n` +
      tried.map((t) => `  ${t.candidate}: ${t.error}`).join('\n'),
  );
}

/** The running native addon's threads, instruction set and BLAS, if its module reports them. */
async function nativeSettings(loaders: BackendLoaders): Promise<NativeSettings | undefined> {
  const mod = (await loaders.importModule(NATIVE_BACKEND_PACKAGE)) as Partial<NativeBackendModule>;
  const status = mod.nativeStatus?.();
  if (!status?.available) return undefined;
  return { threads: status.info.threads, isa: status.info.isa, blas: status.info.blasConfig };
}

/** One line per candidate: which backend runs and why the earlier ones were skipped. */
export function describeBackend(info: BackendInfo): string {
  const skipped = info.tried.map((t) => `${t.candidate}: ${t.error}`).join('; ');
  const gpu = info.adapter ? ` (${describeGpuAdapter(info.adapter)})` : '';
  return `[telepath] backend: ${info.backend}${gpu}${skipped ? ` — skipped: ${skipped}` : ''}`;
}

/** The running WebGPU device's binding limit (what the device enforces), if readable. */
function deviceBindingLimit(): number | undefined {
  const device = (tf.backend() as unknown as { device?: { limits?: { maxStorageBufferBindingSize?: number } } }).device;
  return device?.limits?.maxStorageBufferBindingSize;
}

async function loadUnion(loaders: BackendLoaders): Promise<void> {
  if (unionLoaded) return;
  // Gradients are registered only by the union package (docs/engineering-notes.md §8).
  await loaders.importModule('@tensorflow/tfjs');
  unionLoaded = true;
}

async function startCandidate(c: BackendCandidate, loaders: BackendLoaders, markNode: () => void): Promise<string> {
  switch (c) {
    case 'node-gpu':
      await loaders.importModule('@tensorflow/tfjs-node-gpu');
      markNode(); // loaded: it may have registered "tensorflow" even if it fails to start
      return 'tensorflow';
    case 'node':
      await loaders.importModule('@tensorflow/tfjs-node');
      markNode();
      return 'tensorflow';
    case 'native': {
      const mod = (await loaders.importModule(NATIVE_BACKEND_PACKAGE)) as Partial<NativeBackendModule>;
      if (typeof mod.register !== 'function') throw new Error(`${NATIVE_BACKEND_PACKAGE} does not export register()`);
      return await mod.register(tf);
    }
    case 'wasm':
      await loaders.importModule('@tensorflow/tfjs-backend-wasm');
      return 'wasm';
    case 'cpu':
      await loaders.importModule('@tensorflow/tfjs-backend-cpu');
      return 'cpu';
    case 'webgpu':
      throw new Error('webgpu is started by prepareWebGPU');
  }
}

function firstLine(e: unknown): string {
  const msg = e instanceof Error ? e.message : String(e);
  const code = (e as { code?: string })?.code;
  if (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') {
    const m = /Cannot find (?:package|module) '([^']+)'/.exec(msg);
    return `not installed${m ? ` (${m[1]})` : ''}`;
  }
  return msg.split('\n')[0].slice(0, 300);
}
