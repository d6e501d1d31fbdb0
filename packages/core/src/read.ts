/**
 * Reading tensors back to JavaScript without synchronous GPU reads. On `webgpu` a synchronous
 * read of a GPU-resident tensor (`dataSync`, `arraySync`, `bufferSync`) fails ("OffscreenCanvas
 * is not defined") and on any GPU backend it stalls the pipeline, so hot paths read
 * asynchronously and in one batch: `readScalars` stacks the scalars and reads them once.
 */
import * as tf from '@tensorflow/tfjs-core';

/** Read several scalars (or one-element tensors) with a single asynchronous read. Does not dispose them. */
export async function readScalars(scalars: tf.Tensor[]): Promise<number[]> {
  if (scalars.length === 0) return [];
  const packed = tf.tidy(() => tf.concat(scalars.map((s) => tf.reshape(tf.cast(s, 'float32'), [1]))));
  try {
    return Array.from(await packed.data());
  } finally {
    packed.dispose();
  }
}

/**
 * The values of `t` if they can be had without a GPU read: always on CPU-side backends, and on
 * `webgpu` when the tensor's data still sits in host memory (tensors made from JavaScript arrays
 * and not yet uploaded). Returns null when only a GPU read would do.
 */
export function hostValues(t: tf.Tensor): ArrayLike<number> | null {
  // eslint-disable-next-line no-restricted-properties -- CPU-side backends only: no GPU tensor reaches this read
  if (tf.getBackend() !== 'webgpu') return t.dataSync() as ArrayLike<number>;
  const backend = tf.backend() as unknown as {
    tensorMap?: { get(id: object): { values?: ArrayLike<number> | null } | undefined };
  };
  return backend.tensorMap?.get(t.dataId)?.values ?? null;
}
