/** The contract with core's initBackend: nothing on import, a name from register(), one-line errors; and the install script never fails. */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as tf from '@tensorflow/tfjs';
import { afterEach, describe, expect, it, vi } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

describe('register()', () => {
  afterEach(() => {
    vi.unstubAllEnvs();
    vi.resetModules();
  });

  it('importing the package registers nothing', async () => {
    const mod = await import('./index.js');
    expect(typeof mod.register).toBe('function');
    expect(tf.findBackendFactory('native')).toBeNull();
    expect(tf.getKernelsForBackend('native')).toHaveLength(0);
  });

  it('throws one line saying why and how to enable when the addon is missing', async () => {
    vi.stubEnv('TELEPATH_NATIVE_ADDON', '/nonexistent/telepath_native.node');
    vi.resetModules();
    const mod = await import('./index.js');
    const err = await mod.register(tf).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(err).toBeInstanceOf(Error);
    expect(err!.message).not.toContain('\n');
    expect(err!.message).toMatch(/addon not built.*libopenblas-dev.*npm rebuild @telepath\/backend-native/);
    expect(mod.nativeStatus().available).toBe(false);
    expect(tf.findBackendFactory('native')).toBeNull();
  });

  it('throws one line when the addon is present but cannot load', async () => {
    const bad = join(mkdtempSync(join(tmpdir(), 'bad-addon-')), 'telepath_native.node');
    writeFileSync(bad, 'not an ELF file');
    vi.stubEnv('TELEPATH_NATIVE_ADDON', bad);
    vi.resetModules();
    const mod = await import('./index.js');
    const err = await mod.register(tf).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(err?.message).toMatch(/addon failed to load.*npm rebuild @telepath\/backend-native/);
    expect(err?.message).not.toContain('\n');
  });

  it('registers the backend with every cpu kernel and returns its name, once', async () => {
    const mod = await import('./index.js');
    const status = mod.nativeStatus();
    if (!status.available) {
      console.warn(`[backend-native] skipping registration check: ${status.reason}`);
      return;
    }
    expect(await mod.register(tf)).toBe('native');
    expect(await mod.register(tf)).toBe('native');
    const names = new Set(tf.getKernelsForBackend('native').map((k) => k.kernelName));
    for (const k of tf.getKernelsForBackend('cpu')) expect(names.has(k.kernelName), k.kernelName).toBe(true);
    expect(names.has(mod.FUSED_KERNELS.geluTanh)).toBe(true);
    expect(await tf.setBackend('native')).toBe(true);
    expect(Array.from(tf.add(tf.tensor([1, 2]), 1).dataSync())).toEqual([2, 3]);
  });
});

describe('install script', () => {
  const run = (env: Record<string, string>) =>
    spawnSync(process.execPath, [join(ROOT, 'scripts', 'install.mjs')], {
      env: { ...process.env, ...env },
      encoding: 'utf8',
    });

  it('exits 0 with one line when OpenBLAS is missing', () => {
    const r = run({ TELEPATH_OPENBLAS_LIB_DIRS: mkdtempSync(join(tmpdir(), 'no-blas-')) });
    expect(r.status).toBe(0);
    expect(r.stdout.trim().split('\n')).toHaveLength(1);
    expect(r.stdout).toMatch(/OpenBLAS not found.*apt-get install libopenblas-dev/);
  });

  it('exits 0 with one line when the build fails or is skipped', () => {
    const dir = mkdtempSync(join(tmpdir(), 'bad-gyp-'));
    const gyp = join(dir, 'node-gyp.js');
    writeFileSync(gyp, "console.error('gyp ERR! fake failure'); process.exit(1);\n");
    const failed = run({ npm_config_node_gyp: gyp, TELEPATH_NATIVE_LOG: join(dir, 'install.log') });
    expect(failed.status).toBe(0);
    expect(failed.stdout.trim().split('\n')).toHaveLength(1);
    expect(failed.stdout).toMatch(/build failed.*to enable/);
    const skipped = run({ TELEPATH_NATIVE_SKIP_BUILD: '1' });
    expect(skipped.status).toBe(0);
    expect(skipped.stdout).toMatch(/skipped/);
  });
});
