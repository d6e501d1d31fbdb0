/**
 * Size guards for GPU backends. WebGPU binds each tensor as one storage buffer; a tensor larger
 * than the adapter's `maxStorageBufferBindingSize` gives wrong numbers with no exception (Dawn
 * only logs validation errors). The guard wraps every kernel of a backend: it refuses an input
 * above the limit before the kernel runs, and an output above it right after (the output is freed
 * and never returned), each with an error naming the kernel, the tensor and the limit.
 *
 * Works on any registered backend (the tests exercise it on cpu with a small limit).
 */
import * as tf from '@tensorflow/tfjs-core';

export class TensorSizeError extends Error {
  override name = 'TensorSizeError';
}

interface Guarded {
  backend: string;
  limitBytes: number;
  originals: tf.KernelConfig[];
}
const installed = new Map<string, Guarded>();

/** Bytes a tensor of this shape and dtype occupies on a GPU backend (4 per element, 8 for complex64). */
export function tensorBytes(shape: readonly number[], dtype: tf.DataType): number {
  const n = shape.reduce((a, b) => a * b, 1);
  return n * (dtype === 'complex64' ? 8 : 4);
}

/**
 * Wrap every kernel registered for `backend` so that no input or output tensor exceeds
 * `limitBytes`. Installing again replaces the limit. Returns a function that restores the
 * original kernels.
 */
export function installSizeGuards(
  backend: string,
  limitBytes: number,
  label = 'maxStorageBufferBindingSize',
): () => void {
  const prior = installed.get(backend);
  if (prior) {
    prior.limitBytes = limitBytes;
    return () => removeSizeGuards(backend);
  }
  const originals = tf.getKernelsForBackend(backend);
  const state: Guarded = { backend, limitBytes, originals };
  for (const k of originals) {
    tf.unregisterKernel(k.kernelName, backend);
    tf.registerKernel({ ...k, kernelFunc: guardedKernel(k, state, label) });
  }
  installed.set(backend, state);
  return () => removeSizeGuards(backend);
}

/** Restore the unguarded kernels of `backend` (no-op when none are installed). */
export function removeSizeGuards(backend: string): void {
  const state = installed.get(backend);
  if (!state) return;
  for (const k of state.originals) {
    tf.unregisterKernel(k.kernelName, backend);
    tf.registerKernel(k);
  }
  installed.delete(backend);
}

/** The limit guarding `backend`, if any. */
export function sizeGuardLimit(backend: string): number | undefined {
  return installed.get(backend)?.limitBytes;
}

function guardedKernel(k: tf.KernelConfig, state: Guarded, label: string): tf.KernelFunc {
  const fail = (what: string, t: tf.TensorInfo) => {
    const bytes = tensorBytes(t.shape, t.dtype);
    return new TensorSizeError(
      `${state.backend}: ${k.kernelName} ${what} of shape [${t.shape}] (${t.dtype}) needs ${bytes} bytes (${mib(bytes)}), ` +
        `above this adapter's ${label} of ${state.limitBytes} bytes (${mib(state.limitBytes)}); ` +
        'it would give wrong numbers, so it is refused. Use a smaller batch, sequence or vocabulary, or another backend.',
    );
  };
  return (args) => {
    for (const [name, t] of Object.entries(args.inputs)) {
      if (t && tensorBytes(t.shape, t.dtype) > state.limitBytes) throw fail(`input "${name}"`, t);
    }
    const out = k.kernelFunc(args);
    const outs = Array.isArray(out) ? out : [out];
    const big = outs.find((t) => tensorBytes(t.shape, t.dtype) > state.limitBytes);
    if (big) {
      for (const t of outs) (args.backend as tf.KernelBackend).disposeData(t.dataId);
      throw fail('output', big);
    }
    return out;
  };
}

function mib(bytes: number): string {
  return `${(bytes / 2 ** 20).toFixed(1)} MiB`;
}
