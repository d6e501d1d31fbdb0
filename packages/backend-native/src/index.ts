/**
 * @telepath/backend-native — a TensorFlow.js backend named `native`: the cpu backend's host
 * tensors with OpenBLAS matmul and multithreaded native kernels (N-API addon).
 *
 * Importing this module starts nothing. `register(tf)` loads the addon, registers the backend
 * and its kernels with that tfjs-core engine and returns the backend name, or throws an Error
 * whose one-line message says why the backend is unavailable and how to enable it.
 */
import type * as tfc from '@tensorflow/tfjs-core';
import { type AddonInfo, loadAddon } from './addon.js';
import type { PoolStats } from './buffer-pool.js';
import type { RegisterOptions } from './register.js';

export { ENABLE_HINT, PACKAGE_NAME } from './addon.js';
export type { AddonInfo } from './addon.js';
export type { PoolStats } from './buffer-pool.js';
export type { RegisterOptions } from './register.js';

export const BACKEND_NAME = 'native';
/** Custom kernels that core's layers and optimiser call by name (registered only on this backend, with their gradients). */
export { FUSED_KERNELS } from './fused-names.js';

export type NativeStatus = { available: true; info: AddonInfo } | { available: false; reason: string };

/** Whether the addon loads here (loads it; registers nothing). */
export function nativeStatus(): NativeStatus {
  const load = loadAddon();
  return load.ok ? { available: true, info: load.addon.info() } : { available: false, reason: load.reason };
}

/** Registers the `native` backend with `tf` and returns its name; throws a one-line Error if unavailable. */
export async function register(tf: typeof tfc, options: RegisterOptions = {}): Promise<string> {
  const load = loadAddon();
  if (!load.ok) throw new Error(load.reason);
  const { registerWith } = await import('./register.js');
  return registerWith(tf, load.addon, options);
}

/** How often each cpu (JavaScript) kernel ran on the native backend so far: unported kernels and fallbacks. */
export async function cpuKernelCalls(): Promise<Record<string, number>> {
  const { cpuKernelCalls: calls } = await import('./register.js');
  return Object.fromEntries(calls);
}

/** Buffer-pool counters of the running native backend (undefined if it is not started). */
export function poolStats(tf: typeof tfc): PoolStats | undefined {
  const be = tf.engine().registry[BACKEND_NAME] as unknown as { poolStats?: () => PoolStats } | undefined;
  return be?.poolStats?.();
}
