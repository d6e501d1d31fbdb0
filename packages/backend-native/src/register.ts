/**
 * Registration of the `native` backend with a tfjs-core engine: the backend factory, every
 * cpu kernel under the new name (the JS fallbacks, running on the same host arrays), the
 * native overrides, and the gradients of the fused kernels (GELU, LayerNorm, the attention
 * softmax), so that core's layers can call them by name with `runKernel`. Called by `register()`.
 */
import { availableParallelism } from 'node:os';
import type * as tfc from '@tensorflow/tfjs-core';
import type { KernelFunc } from '@tensorflow/tfjs-core';
import type { NativeAddon } from './addon.js';
import type { KernelContext, NativeKernelFunc } from './kernels/context.js';
import { FUSED_KERNELS as FUSED } from './fused-names.js';
import { nativeKernels, opCodes } from './kernels/index.js';

export const BACKEND_NAME = 'native';

/** Calls that ran a cpu (JavaScript) kernel on this backend, by kernel name: unported kernels and fallbacks. */
export const cpuKernelCalls = new Map<string, number>();

function counted(name: string, f: NativeKernelFunc): NativeKernelFunc {
  return (args) => {
    cpuKernelCalls.set(name, (cpuKernelCalls.get(name) ?? 0) + 1);
    return f(args);
  };
}

export interface RegisterOptions {
  /** Worker threads incl. the caller (default TELEPATH_NATIVE_THREADS, else the available cores, at most 8). */
  threads?: number;
  /** Cap on idle pooled output buffers in MiB, raised to 1.5 × the most bytes ever live at once (default TELEPATH_NATIVE_POOL_MB, else 1024; steady state holds about one training step's peak). */
  poolMiB?: number;
  /** Backend priority for tfjs's automatic choice (default 3: above wasm and cpu). */
  priority?: number;
}

function envInt(name: string): number | undefined {
  const v = process.env[name];
  if (v === undefined || v.trim() === '') return undefined;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw new Error(`${name} must be a non-negative integer, got "${v}"`);
  return n;
}

export async function registerWith(tf: typeof tfc, addon: NativeAddon, options: RegisterOptions = {}): Promise<string> {
  if (tf.findBackendFactory(BACKEND_NAME)) return BACKEND_NAME;
  const threads = options.threads ?? envInt('TELEPATH_NATIVE_THREADS') ?? Math.min(availableParallelism(), 8);
  const poolMiB = options.poolMiB ?? envInt('TELEPATH_NATIVE_POOL_MB') ?? 1024;
  addon.setThreads(Math.max(1, threads));
  if (process.env.TELEPATH_NATIVE_MALLOC_TUNE !== '0') addon.tuneMalloc(64 << 20, 256 << 20);

  // Loads the cpu backend and registers its kernels under 'cpu' (their source for ours).
  const { NativeBackend } = await import('./backend.js');
  const cpuKernels = tf.getKernelsForBackend('cpu');
  if (cpuKernels.length === 0)
    throw new Error('@tensorflow/tfjs-backend-cpu registered no kernels (two copies of tfjs-core?)');
  const byName = new Map(cpuKernels.map((k) => [k.kernelName, k]));
  const ctx: KernelContext = {
    ops: opCodes(addon),
    fallback: (name: string): NativeKernelFunc => {
      const k = byName.get(name);
      if (k) return counted(name, k.kernelFunc as unknown as NativeKernelFunc);
      return () => {
        throw new Error(
          `Kernel '${name}' has no native implementation for these inputs and no cpu kernel to fall back to`,
        );
      };
    },
  };
  const native = nativeKernels(ctx);
  const overridden = new Set(native.map((k) => k.kernelName));

  tf.registerBackend(
    BACKEND_NAME,
    () => new NativeBackend(addon, { poolCapBytes: poolMiB * 1024 * 1024 }),
    options.priority ?? 3,
  );
  for (const k of cpuKernels) {
    if (overridden.has(k.kernelName)) continue;
    tf.registerKernel({
      ...k,
      backendName: BACKEND_NAME,
      kernelFunc: counted(k.kernelName, k.kernelFunc as unknown as NativeKernelFunc) as unknown as KernelFunc,
    });
  }
  for (const k of native)
    tf.registerKernel({
      kernelName: k.kernelName,
      backendName: BACKEND_NAME,
      kernelFunc: k.kernelFunc as unknown as KernelFunc,
    });
  if (!tf.getGradient(FUSED.geluTanh)) {
    tf.registerGradient({
      kernelName: FUSED.geluTanh,
      inputsToSave: ['x'],
      gradFunc: (dy, saved) => ({
        x: () => tf.engine().runKernel(FUSED.geluTanhGrad, { dy: dy as tfc.Tensor, x: saved[0] }) as tfc.Tensor,
      }),
    });
  }
  if (!tf.getGradient(FUSED.layerNorm)) {
    tf.registerGradient({
      kernelName: FUSED.layerNorm,
      inputsToSave: ['x', 'gamma'],
      outputsToSave: [false, true, true],
      gradFunc: (dys, saved) => {
        const [x, gamma, mean, rstd] = saved;
        // One kernel call gives all three; mean and rstd are saved statistics, not outputs anyone differentiates.
        const dy = (dys as tfc.Tensor[])[0];
        const [dx, dgamma, dbeta] = tf
          .engine()
          .runKernel(FUSED.layerNormGrad, { dy, x, gamma, mean, rstd }) as tfc.Tensor[];
        return { x: () => dx, gamma: () => dgamma, beta: () => dbeta };
      },
    });
  }
  if (!tf.getGradient(FUSED.scaledMaskedSoftmax)) {
    tf.registerGradient({
      kernelName: FUSED.scaledMaskedSoftmax,
      inputsToSave: ['bias'],
      outputsToSave: [true],
      gradFunc: (dy, saved, attrs) => {
        const [bias, y] = saved;
        const g = dy as tfc.Tensor;
        const scale = (attrs as { scale: number }).scale;
        return {
          x: () => tf.engine().runKernel(FUSED.softmaxGrad, { dy: g, y }, { scale }) as tfc.Tensor,
          // d/dbias: the unscaled softmax gradient, summed over the axes bias broadcasts along.
          bias: () => {
            const dz = tf.engine().runKernel(FUSED.softmaxGrad, { dy: g, y }, { scale: 1 }) as tfc.Tensor;
            const lead = y.rank - bias.rank;
            const axes = y.shape
              .map((d, i) => i)
              .filter((i) => i < lead || (bias.shape[i - lead] === 1 && y.shape[i] !== 1));
            return tf.reshape(axes.length ? tf.sum(dz, axes) : dz, bias.shape);
          },
        };
      },
    });
  }
  return BACKEND_NAME;
}
