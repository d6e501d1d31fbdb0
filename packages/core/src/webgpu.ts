/**
 * The `webgpu` slot of `initBackend()`: TensorFlow.js's WebGPU backend running in Node through
 * Dawn (the `webgpu` package, prebuilt binaries from npm). Dawn talks to the GPU through Vulkan.
 *
 * Order of set-up matters: Dawn's globals (`GPUBufferUsage`, …) and `navigator.gpu` must exist
 * before `@tensorflow/tfjs-backend-webgpu` is imported, because that module registers its backend
 * only when it sees `navigator.gpu` at import time. Node 21+ has a getter-only `navigator`, so
 * `gpu` is defined on it rather than replacing it.
 *
 * A software adapter (lavapipe, `architecture: "software"`) is slower than the CPU backends, so
 * the default order never takes it; an explicit choice (`TELEPATH_BACKEND=webgpu`) does — that
 * is how the tests run the GPU code paths on a machine without a GPU.
 */
import * as fs from 'node:fs';
import type { BackendLoaders } from './backend.js';

/** The adapter Dawn chose, as recorded in env.json and the start-up line. */
export interface GpuAdapter {
  vendor: string;
  architecture: string;
  device: string;
  description: string;
  /** Largest storage buffer one kernel may bind, in bytes; every tensor must fit in it. */
  maxStorageBufferBindingSize: number;
  maxBufferSize: number;
}

interface DawnModule {
  create(flags: string[]): GpuLike;
  globals: Record<string, unknown>;
}
interface GpuLike {
  requestAdapter(o?: { powerPreference?: string }): Promise<AdapterLike | null>;
}
interface AdapterLike {
  info: { vendor: string; architecture: string; device: string; description: string };
  limits: { maxStorageBufferBindingSize: number; maxBufferSize: number };
}

export const WEBGPU_PACKAGES = ['webgpu', '@tensorflow/tfjs-backend-webgpu'] as const;

let gpu: GpuLike | undefined;

/**
 * Vulkan driver manifests (ICD json files) the Vulkan loader would find. Empty means Dawn has no
 * driver to use, which is decided here without loading Dawn (whose "found no drivers" warnings
 * would otherwise print on every CPU-only start-up).
 */
export function vulkanDriverFiles(env: NodeJS.ProcessEnv = process.env): string[] {
  const explicit = env.VK_DRIVER_FILES ?? env.VK_ICD_FILENAMES;
  if (explicit) return explicit.split(':').filter((f) => f !== '' && fs.existsSync(f));
  const dirs = [
    ...(env.XDG_CONFIG_HOME ? [`${env.XDG_CONFIG_HOME}/vulkan/icd.d`] : []),
    '/etc/vulkan/icd.d',
    '/usr/local/share/vulkan/icd.d',
    '/usr/share/vulkan/icd.d',
  ];
  const found: string[] = [];
  for (const dir of dirs) {
    try {
      for (const f of fs.readdirSync(dir)) if (f.endsWith('.json')) found.push(`${dir}/${f}`);
    } catch {
      // directory absent
    }
  }
  return found;
}

/**
 * Prepare the `webgpu` backend: load Dawn, install its globals and `navigator.gpu`, check the
 * adapter, then import the tfjs WebGPU backend (which registers "webgpu"). Throws, with the
 * reason, when there is no Vulkan driver, no adapter, or only a software adapter and `force` is
 * false. Returns the adapter.
 */
export async function prepareWebGPU(
  loaders: BackendLoaders,
  o: { force: boolean; env?: NodeJS.ProcessEnv },
): Promise<GpuAdapter> {
  if (process.platform === 'linux' && vulkanDriverFiles(o.env).length === 0) {
    throw new Error(
      'no Vulkan driver: no ICD json in VK_DRIVER_FILES or /usr/share/vulkan/icd.d (install libvulkan1 and the GPU vendor\'s Vulkan driver; README "Running on a GPU")',
    );
  }
  const dawn = (await loaders.importModule('webgpu')) as Partial<DawnModule>;
  if (typeof dawn.create !== 'function' || !dawn.globals)
    throw new Error('the webgpu package does not export create() and globals');
  installGlobals(dawn as DawnModule);
  const adapter = await gpu!.requestAdapter({ powerPreference: 'high-performance' });
  if (!adapter)
    throw new Error(
      'Dawn found no usable WebGPU adapter (requestAdapter() returned null; a Vulkan driver too old for Dawn, e.g. Mesa 22 lavapipe, is rejected)',
    );
  const info = describeAdapter(adapter);
  if (info.architecture === 'software' && !o.force) {
    throw new Error(
      `software adapter (${info.description}) is not taken automatically; TELEPATH_BACKEND=webgpu forces it`,
    );
  }
  await loaders.importModule('@tensorflow/tfjs-backend-webgpu');
  return info;
}

function installGlobals(dawn: DawnModule): void {
  const g = globalThis as Record<string, unknown>;
  for (const [k, v] of Object.entries(dawn.globals)) if (!(k in g)) g[k] = v;
  gpu ??= dawn.create([]);
  const nav = g.navigator as { gpu?: unknown } | undefined;
  if (nav?.gpu) return;
  if (nav) Object.defineProperty(nav, 'gpu', { value: gpu, configurable: true });
  else Object.defineProperty(g, 'navigator', { value: { gpu }, configurable: true, writable: true });
}

function describeAdapter(a: AdapterLike): GpuAdapter {
  return {
    vendor: a.info.vendor,
    architecture: a.info.architecture,
    device: a.info.device,
    description: a.info.description,
    maxStorageBufferBindingSize: a.limits.maxStorageBufferBindingSize,
    maxBufferSize: a.limits.maxBufferSize,
  };
}

/** One-line summary for the start-up line. */
export function describeGpuAdapter(a: GpuAdapter): string {
  const mib = (n: number) => `${Math.round(n / 2 ** 20)} MiB`;
  return `${a.vendor} ${a.architecture || '?'} "${a.description || a.device}", max binding ${mib(a.maxStorageBufferBindingSize)}`;
}
