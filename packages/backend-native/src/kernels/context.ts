/**
 * What every native kernel gets: the backend (its addon and buffer pool), op codes by name,
 * and the cpu kernel of the same name to fall back to for dtypes or attributes the native
 * code does not handle (the cpu kernels run on the same host arrays, no copies).
 */
import type { NamedAttrMap, TensorInfo } from '@tensorflow/tfjs-core';
import type { NativeAddon } from '../addon.js';
import type { NativeBackend } from '../backend.js';

/** tfjs's kernel arguments, with inputs typed as present (tfjs checks them before the call). */
export interface KernelArgs {
  inputs: Record<string, TensorInfo>;
  backend: object;
  attrs?: NamedAttrMap;
}

export type NativeKernelFunc = (args: KernelArgs) => TensorInfo | TensorInfo[];

export interface OpCodes {
  binary: Record<string, number>;
  compare: Record<string, number>;
  unary: Record<string, number>;
  reduce: Record<string, number>;
}

export interface KernelContext {
  ops: OpCodes;
  /** The cpu kernel registered under this name. */
  fallback(kernelName: string): NativeKernelFunc;
}

export interface NativeKernel {
  kernelName: string;
  kernelFunc: NativeKernelFunc;
}

export function opCodes(addon: NativeAddon): OpCodes {
  const info = addon.info();
  const index = (names: string[]) => Object.fromEntries(names.map((n, i) => [n, i]));
  return {
    binary: index(info.binaryOps),
    compare: index(info.compareOps),
    unary: index(info.unaryOps),
    reduce: index(info.reduceOps),
  };
}

export function nativeOf(args: KernelArgs): NativeBackend {
  return args.backend as NativeBackend;
}

/** Shared scratch for small integer metadata (shapes); kernels are synchronous. */
export const META = new Int32Array(64);

export function sizeOf(shape: readonly number[]): number {
  let n = 1;
  for (const d of shape) n *= d;
  return n;
}

export function attr<T>(args: KernelArgs, name: string): T {
  return (args.attrs as Record<string, unknown> | undefined)?.[name] as T;
}

/** The inputs of a list-input kernel (Concat, AddN) as an array. */
export function inputList(args: KernelArgs): TensorInfo[] {
  const inputs = args.inputs as unknown as TensorInfo[] | Record<string, TensorInfo>;
  return Array.isArray(inputs) ? inputs : Object.values(inputs);
}

/** Host values of a kernel's float32 or int32 input. */
export type Host = Float32Array | Int32Array;

/** The host array of a float32 or int32 tensor, or undefined (other dtypes fall back to cpu). */
export function hostValues(args: KernelArgs, t: TensorInfo): Host | undefined {
  const be = nativeOf(args);
  return be.f32(t) ?? be.i32(t);
}

/** An output array of n elements: float32 from the buffer pool, int32 fresh. */
export function allocLike(args: KernelArgs, dtype: string, n: number): Host {
  return dtype === 'float32' ? nativeOf(args).allocF32(n) : new Int32Array(n);
}
