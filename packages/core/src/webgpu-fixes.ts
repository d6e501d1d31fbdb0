/**
 * Fixes applied when `webgpu` starts (backend.ts), for two ways tfjs-backend-webgpu 4.22 can give
 * wrong numbers without an exception:
 *
 * - `AddN` binds every input in one shader; past the device's `maxStorageBuffersPerShaderStage`
 *   (8 on lavapipe and many GPUs) Dawn rejects the pipeline, the whole command buffer is dropped
 *   and every result computed in it reads back as zeros. The replacement adds in chunks that fit.
 * - Any other Dawn validation error is only printed. The backend's reads are wrapped so that a
 *   read after such an error throws it, instead of returning numbers from a dropped submission.
 */
import * as tf from '@tensorflow/tfjs-core';

interface WebGPUDevice {
  limits: { maxStorageBuffersPerShaderStage: number };
  addEventListener?(type: 'uncapturederror', fn: (e: { error: { message: string } }) => void): void;
  onuncapturederror?: ((e: { error: { message: string } }) => void) | null;
}
interface WebGPUBackendLike extends tf.KernelBackend {
  device: WebGPUDevice;
}

const patched = new WeakSet<object>();

export function applyWebGPUFixes(): void {
  const backend = tf.backend() as WebGPUBackendLike;
  if (patched.has(backend)) return;
  patched.add(backend);
  chunkAddN(backend.device.limits.maxStorageBuffersPerShaderStage - 1);
  failReadsAfterDeviceErrors(backend);
}

function chunkAddN(maxInputs: number): void {
  const original = tf.getKernel('AddN', 'webgpu');
  if (!original) return;
  const addN = original.kernelFunc;
  tf.unregisterKernel('AddN', 'webgpu');
  tf.registerKernel({
    ...original,
    kernelFunc: (args) => {
      let terms = args.inputs as unknown as tf.TensorInfo[];
      const backend = args.backend as tf.KernelBackend;
      const temps: tf.TensorInfo[] = [];
      while (terms.length > maxInputs) {
        const sums: tf.TensorInfo[] = [];
        for (let i = 0; i < terms.length; i += maxInputs) {
          const chunk = terms.slice(i, i + maxInputs);
          const s =
            chunk.length === 1
              ? chunk[0]
              : (addN({ ...args, inputs: chunk as unknown as tf.NamedTensorInfoMap }) as tf.TensorInfo);
          if (chunk.length > 1) temps.push(s);
          sums.push(s);
        }
        terms = sums;
      }
      const out = addN({ ...args, inputs: terms as unknown as tf.NamedTensorInfoMap }) as tf.TensorInfo;
      for (const t of temps) backend.disposeData(t.dataId);
      return out;
    },
  });
}

function failReadsAfterDeviceErrors(backend: WebGPUBackendLike): void {
  let firstError: string | null = null;
  const record = (e: { error: { message: string } }) => {
    firstError ??= e.error.message.split('\n').slice(0, 3).join(' ');
  };
  if (backend.device.addEventListener) backend.device.addEventListener('uncapturederror', record);
  else backend.device.onuncapturederror = record;
  const check = () => {
    if (firstError)
      throw new Error(`webgpu: the GPU rejected work earlier (${firstError}); results computed since then are wrong`);
  };
  const read = backend.read.bind(backend);
  backend.read = async (dataId) => {
    const values = await read(dataId);
    await new Promise<void>((resolve) => setImmediate(resolve)); // let Dawn deliver pending error events
    check();
    return values;
  };
  const readSync = backend.readSync.bind(backend);
  backend.readSync = (dataId) => {
    check();
    return readSync(dataId);
  };
}
