/**
 * The `native` backend: tfjs's cpu backend (tensors are host typed arrays) whose hot kernels
 * are replaced by native ones. Outputs of native kernels come from a BufferPool and go back
 * to it when tfjs deletes their data. Imported lazily by `register()` (it loads
 * @tensorflow/tfjs-backend-cpu).
 */
import { MathBackendCPU } from '@tensorflow/tfjs-backend-cpu';
import type { backend_util, DataId, DataType, TensorInfo } from '@tensorflow/tfjs-core';
import type { NativeAddon } from './addon.js';
import { BufferPool, type PoolStats } from './buffer-pool.js';

export interface NativeBackendOptions {
  /** Cap on idle pooled buffers, in bytes. */
  poolCapBytes: number;
}

export class NativeBackend extends MathBackendCPU {
  readonly addon: NativeAddon;
  readonly pool: BufferPool;

  constructor(addon: NativeAddon, options: NativeBackendOptions) {
    super();
    // The cpu backend's "install tfjs-node" banner does not apply to this backend.
    (this as unknown as { firstUse: boolean }).firstUse = false;
    this.addon = addon;
    this.pool = new BufferPool(options.poolCapBytes);
  }

  /** A float32 buffer of n elements for a kernel output (contents undefined). */
  allocF32(n: number): Float32Array {
    return this.pool.alloc(n);
  }

  /** The float32 values of a tensor, or undefined if it is not a plain float32 tensor here. */
  f32(t: TensorInfo): Float32Array | undefined {
    if (t.dtype !== 'float32') return undefined;
    const v = this.data.get(t.dataId)?.values;
    return v instanceof Float32Array ? v : undefined;
  }

  /** The int32 values of a tensor, or undefined. */
  i32(t: TensorInfo): Int32Array | undefined {
    if (t.dtype !== 'int32') return undefined;
    const v = this.data.get(t.dataId)?.values;
    return v instanceof Int32Array ? v : undefined;
  }

  /** Wraps a kernel's float32 output buffer. */
  outF32(shape: number[], values: Float32Array): TensorInfo {
    return this.makeTensorInfo(shape, 'float32', values);
  }

  /** A tensor sharing x's data (like cpu Reshape): no copy. */
  share(x: TensorInfo, shape: number[] = x.shape): TensorInfo {
    this.incRef(x.dataId);
    return { dataId: x.dataId, shape, dtype: x.dtype };
  }

  poolStats(): PoolStats {
    return this.pool.stats();
  }

  override write(values: backend_util.BackendValues, shape: number[], dtype: DataType): DataId {
    this.pool.noteWrite(values);
    return super.write(values, shape, dtype);
  }

  override move(
    dataId: DataId,
    values: backend_util.BackendValues,
    shape: number[],
    dtype: DataType,
    refCount: number,
  ): void {
    this.pool.taint(values);
    super.move(dataId, values, shape, dtype, refCount);
  }

  override readSync(dataId: DataId): backend_util.BackendValues {
    // The caller gets our array itself (dataSync, arraySync, bufferSync): never reuse it.
    const d = this.data.get(dataId);
    if (d) this.pool.taint(d.values);
    return super.readSync(dataId);
  }

  override disposeData(dataId: DataId, force = false): boolean {
    const values = this.data.get(dataId)?.values;
    const done = super.disposeData(dataId, force);
    if (done && values !== undefined && !this.data.has(dataId)) this.pool.release(values);
    return done;
  }

  override dispose(): void {
    this.pool.clear();
    super.dispose();
  }
}
