import * as tf from '@tensorflow/tfjs-core';
import { describe, expect, it } from 'vitest';
import { describeBackend, initBackend, resolveBackendOrder, type BackendLoaders } from './backend.js';

/** Loaders that simulate missing or broken packages and record what was imported. */
function simulated(broken: Record<string, Error>): BackendLoaders & { imported: string[] } {
  const imported: string[] = [];
  return {
    imported,
    importModule: async (name: string) => {
      imported.push(name);
      if (broken[name]) throw broken[name];
      return import(name);
    },
  };
}
const notFound = (name: string) => Object.assign(new Error(`Cannot find package '${name}' imported from x`), { code: 'ERR_MODULE_NOT_FOUND' });

describe('initBackend', () => {
  it('falls back past missing and broken packages to wasm, saying why each was skipped', async () => {
    const loaders = simulated({
      '@tensorflow/tfjs-node-gpu': notFound('@tensorflow/tfjs-node-gpu'),
      '@tensorflow/tfjs-node': new Error('The Node.js native addon module (tfjs_binding.node) can not be found at path: x'),
      '@telepath/backend-native': new Error('addon not built: apt-get install libopenblas-dev && npm rebuild @telepath/backend-native'),
    });
    const info = await initBackend(undefined, { loaders, quiet: true, env: {} });
    expect(info.backend).toBe('wasm');
    expect(tf.getBackend()).toBe('wasm');
    expect(info.orderSource).toBe('default');
    expect(info.tried.map((t) => t.candidate)).toEqual(['node-gpu', 'node', 'native']);
    expect(info.tried[0].error).toBe('not installed (@tensorflow/tfjs-node-gpu)');
    expect(info.tried[1].error).toMatch(/native addon/);
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
        return import(name);
      },
    };
    const info = await initBackend(['node-gpu', 'node', 'native', 'cpu'], { loaders, quiet: true });
    expect(loaders.imported).not.toContain('@tensorflow/tfjs-node');
    expect(info.tried[1].error).toMatch(/other tfjs-node package was already loaded/);
    expect(info.backend).toBe('cpu');
  });

  it('takes an explicit choice from the argument or TELEPATH_BACKEND and rejects unknown names', async () => {
    expect(resolveBackendOrder('cpu')).toEqual({ order: ['cpu'], source: 'argument' });
    expect(resolveBackendOrder(undefined, { TELEPATH_BACKEND: 'wasm, cpu' })).toEqual({ order: ['wasm', 'cpu'], source: 'TELEPATH_BACKEND' });
    expect(() => resolveBackendOrder(undefined, { TELEPATH_BACKEND: 'gpu' })).toThrow('TELEPATH_BACKEND: unknown backend "gpu". Expected one of: node-gpu, node, native, wasm, cpu');
    const info = await initBackend('cpu', { quiet: true });
    expect(info.backend).toBe('cpu');
  });

  it('reports every failure when nothing can start', async () => {
    const loaders = simulated({ '@tensorflow/tfjs-node': notFound('@tensorflow/tfjs-node') });
    await expect(initBackend(['node'], { loaders, quiet: true })).rejects.toThrow(/No TensorFlow.js backend could start.*\n {2}node: not installed/);
  });
});
