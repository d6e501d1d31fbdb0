import * as tf from '@tensorflow/tfjs-core';
import { describe, expect, it } from 'vitest';
import { describeBackend, initBackend, resolveBackendOrder, type BackendLoaders } from './backend.js';
import { vulkanDriverFiles } from './webgpu.js';

/** Loaders that simulate missing or broken packages and record what was imported. */
function simulated(broken: Record<string, Error>): BackendLoaders & { imported: string[] } {
  const imported: string[] = [];
  return {
    imported,
    importModule: async (name: string) => {
      imported.push(name);
      if (broken[name]) throw broken[name];
      // eslint-disable-next-line no-restricted-syntax -- a fake loader falls through to the real one, by name
      return import(name);
    },
  };
}
const notFound = (name: string) =>
  Object.assign(new Error(`Cannot find package '${name}' imported from x`), { code: 'ERR_MODULE_NOT_FOUND' });

describe('initBackend', () => {
  it('falls back past missing and broken packages to wasm, saying why each was skipped', async () => {
    const loaders = simulated({
      '@tensorflow/tfjs-node-gpu': notFound('@tensorflow/tfjs-node-gpu'),
      '@tensorflow/tfjs-node': new Error(
        'The Node.js native addon module (tfjs_binding.node) can not be found at path: x',
      ),
      '@telepath/backend-native': new Error(
        'addon not built: apt-get install libopenblas-dev && npm rebuild @telepath/backend-native',
      ),
    });
    const info = await initBackend(undefined, { loaders, quiet: true, env: {} });
    expect(info.backend).toBe('wasm');
    expect(tf.getBackend()).toBe('wasm');
    expect(info.orderSource).toBe('default');
    expect(info.tried.map((t) => t.candidate)).toEqual(['node-gpu', 'node', 'webgpu', 'native']);
    expect(info.tried[0].error).toBe('not installed (@tensorflow/tfjs-node-gpu)');
    expect(info.tried[1].error).toMatch(/native addon/);
    if (process.platform === 'linux' && vulkanDriverFiles({}).length === 0) {
      expect(info.tried[2].error).toMatch(/^no Vulkan driver/);
      expect(loaders.imported).not.toContain('webgpu'); // no driver: Dawn is not even loaded
    }
    expect(describeBackend(info)).toMatch(/backend: wasm — skipped: node-gpu: not installed/);
    expect(tf.sum(tf.tensor1d([1, 2, 3])).dataSync()[0]).toBe(6);
  });

  it('never loads the second tfjs-node package after the first one loaded but failed to start', async () => {
    // tfjs-node-gpu "imports" (an empty module here) but registers no backend: setBackend fails.
    const loaders: BackendLoaders & { imported: string[] } = {
      imported: [],
      async importModule(name) {
        this.imported.push(name);
        if (name === '@tensorflow/tfjs-node-gpu') return {};
        if (name === '@telepath/backend-native') throw notFound(name);
        // eslint-disable-next-line no-restricted-syntax -- a fake loader falls through to the real one, by name
        return import(name);
      },
    };
    const info = await initBackend(['node-gpu', 'node', 'native', 'cpu'], { loaders, quiet: true });
    expect(loaders.imported).not.toContain('@tensorflow/tfjs-node');
    expect(info.tried[1].error).toMatch(/other tfjs-node package was already loaded/);
    expect(info.backend).toBe('cpu');
  });

  it("records a native module's threads, instruction set and BLAS, and nothing for other backends", async () => {
    // A stand-in native module: registers the cpu backend under its own name and reports its addon.
    const info = { threads: 3, isa: 'x86-64-v3', blasConfig: 'OpenBLAS 0.3.21 Haswell' };
    const loaders: BackendLoaders = {
      async importModule(name) {
        if (name === '@telepath/backend-native')
          return {
            register: async () => {
              await import('@tensorflow/tfjs-backend-cpu');
              return 'cpu';
            },
            nativeStatus: () => ({ available: true, info }),
          };
        // eslint-disable-next-line no-restricted-syntax -- a fake loader falls through to the real one, by name
        return import(name);
      },
    };
    const started = await initBackend(['native'], { loaders, quiet: true });
    expect(started.native).toEqual({ threads: 3, isa: 'x86-64-v3', blas: 'OpenBLAS 0.3.21 Haswell' });
    expect((await initBackend('cpu', { quiet: true })).native).toBeUndefined();
  });

  it('takes an explicit choice from the argument or TELEPATH_BACKEND and rejects unknown names', async () => {
    expect(resolveBackendOrder('cpu')).toEqual({ order: ['cpu'], source: 'argument' });
    expect(resolveBackendOrder(undefined, { TELEPATH_BACKEND: 'wasm, cpu' })).toEqual({
      order: ['wasm', 'cpu'],
      source: 'TELEPATH_BACKEND',
    });
    expect(() => resolveBackendOrder(undefined, { TELEPATH_BACKEND: 'gpu' })).toThrow(
      'TELEPATH_BACKEND: unknown backend "gpu". Expected one of: node-gpu, node, webgpu, native, wasm, cpu',
    );
    const info = await initBackend('cpu', { quiet: true });
    expect(info.backend).toBe('cpu');
  });

  it('skips a software WebGPU adapter in the default order and takes it when asked for by name', async () => {
    // A stand-in for Dawn whose only adapter is a software one (what lavapipe reports).
    const adapter = {
      info: { vendor: 'mesa', architecture: 'software', device: 'llvmpipe', description: 'llvmpipe (stand-in)' },
      limits: { maxStorageBufferBindingSize: 2 ** 27, maxBufferSize: 2 ** 32 },
    };
    const fakeDawn = { create: () => ({ requestAdapter: async () => adapter }), globals: {} };
    const imported: string[] = [];
    const loaders: BackendLoaders = {
      async importModule(name) {
        imported.push(name);
        if (name === 'webgpu') return fakeDawn;
        if (name === '@tensorflow/tfjs-backend-webgpu') return {}; // registers nothing: setBackend fails
        if (name.startsWith('@tensorflow/tfjs-node') || name === '@telepath/backend-native') throw notFound(name);
        // eslint-disable-next-line no-restricted-syntax -- a fake loader falls through to the real one, by name
        return import(name);
      },
    };
    const env = { VK_DRIVER_FILES: new URL(import.meta.url).pathname }; // any existing file counts as a driver here
    const auto = await initBackend(undefined, { loaders, quiet: true, env });
    expect(auto.tried.find((t) => t.candidate === 'webgpu')?.error).toBe(
      'software adapter (llvmpipe (stand-in)) is not taken automatically; TELEPATH_BACKEND=webgpu forces it',
    );
    expect(imported).not.toContain('@tensorflow/tfjs-backend-webgpu');
    const forced = await initBackend(undefined, {
      loaders,
      quiet: true,
      env: { ...env, TELEPATH_BACKEND: 'webgpu,cpu' },
    });
    expect(imported).toContain('@tensorflow/tfjs-backend-webgpu');
    expect(forced.tried[0].candidate).toBe('webgpu');
    expect(forced.tried[0].error).not.toMatch(/software adapter/);
    expect(forced.backend).toBe('cpu');
  });

  it('reports every failure when nothing can start', async () => {
    const loaders = simulated({ '@tensorflow/tfjs-node': notFound('@tensorflow/tfjs-node') });
    await expect(initBackend(['node'], { loaders, quiet: true })).rejects.toThrow(
      /No TensorFlow.js backend could start.*\n {2}node: not installed/,
    );
  });
});
