/**
 * Data movement: Transpose, GatherV2 (embedding lookups), UnsortedSegmentSum (gather's
 * gradient), Concat and SplitV. float32 (and int32/bool for Transpose, int32 for Concat/Split).
 */
import { backend_util, type TensorInfo, util } from '@tensorflow/tfjs-core';
import {
  allocLike,
  attr,
  hostValues,
  inputList,
  type KernelArgs,
  type KernelContext,
  META,
  type NativeKernel,
  nativeOf,
  sizeOf,
} from './context.js';

function transpose(args: KernelArgs) {
  const { x } = args.inputs;
  const perm = attr<number[]>(args, 'perm');
  const be = nativeOf(args);
  const rank = x.shape.length;
  const shape = perm.map((p) => x.shape[p]);
  if (perm.every((p, i) => p === i)) return be.share(x, shape);
  const vals = be.data.get(x.dataId)?.values;
  const ok =
    (x.dtype === 'float32' && vals instanceof Float32Array) ||
    (x.dtype === 'int32' && vals instanceof Int32Array) ||
    (x.dtype === 'bool' && vals instanceof Uint8Array);
  if (!ok || rank > 12) return undefined;
  const out =
    x.dtype === 'float32'
      ? be.allocF32(vals.length)
      : x.dtype === 'int32'
        ? new Int32Array(vals.length)
        : new Uint8Array(vals.length);
  META[0] = rank;
  for (let i = 0; i < rank; i++) {
    META[1 + i] = x.shape[i];
    META[1 + rank + i] = perm[i];
  }
  be.addon.transpose(vals, out, META);
  return be.makeTensorInfo(shape, x.dtype, out);
}

function gather(args: KernelArgs) {
  const { x, indices } = args.inputs;
  const be = nativeOf(args);
  const xv = be.f32(x);
  const iv = be.i32(indices);
  if (!xv || !iv || (attr<number>(args, 'batchDims') ?? 0) !== 0) return undefined;
  const axis = util.parseAxisParam(attr<number>(args, 'axis'), x.shape)[0];
  const outer = sizeOf(x.shape.slice(0, axis));
  const inner = sizeOf(x.shape.slice(axis + 1));
  const shape = [...x.shape.slice(0, axis), ...indices.shape, ...x.shape.slice(axis + 1)];
  const out = be.allocF32(sizeOf(shape));
  // An index out of range: let the cpu kernel raise its error.
  if (!be.addon.gather(xv, iv, out, outer, x.shape[axis], inner)) return undefined;
  return be.outF32(shape, out);
}

function segmentSum(args: KernelArgs) {
  const { x, segmentIds } = args.inputs;
  const be = nativeOf(args);
  const xv = be.f32(x);
  const iv = be.i32(segmentIds);
  if (!xv || !iv) return undefined;
  const numSegments = attr<number>(args, 'numSegments');
  const innerShape = x.shape.slice(segmentIds.shape.length);
  const rows = iv.length;
  const inner = sizeOf(innerShape);
  if (rows * inner !== xv.length) return undefined;
  const shape = [numSegments, ...innerShape];
  const out = be.allocF32(sizeOf(shape));
  be.addon.segmentSum(xv, iv, out, rows, inner, numSegments);
  return be.outF32(shape, out);
}

function concat(args: KernelArgs) {
  const list = inputList(args);
  if (list.length < 2) return undefined;
  const dtype = list[0].dtype;
  if (dtype !== 'float32' && dtype !== 'int32') return undefined;
  const axis = util.parseAxisParam(attr<number>(args, 'axis'), list[0].shape)[0];
  const shapes = list.map((t) => t.shape);
  backend_util.assertParamsConsistent(shapes, axis);
  const shape = backend_util.computeOutShape(shapes, axis);
  const total = sizeOf(shape);
  const vals = list.map((t) => (t.dtype === dtype ? hostValues(args, t) : undefined));
  if (total === 0 || vals.some((v) => !v)) return undefined;
  const outer = sizeOf(shape.slice(0, axis));
  const outInner = total / outer;
  const out = allocLike(args, dtype, total);
  let offset = 0;
  for (let i = 0; i < list.length; i++) {
    const inner = sizeOf(list[i].shape.slice(axis));
    if (inner > 0) nativeOf(args).addon.copy2d(vals[i]!, 0, inner, out, offset, outInner, outer, inner);
    offset += inner;
  }
  return nativeOf(args).makeTensorInfo(shape, dtype, out);
}

function splitV(args: KernelArgs) {
  const { x } = args.inputs;
  const xv = hostValues(args, x);
  if (!xv) return undefined;
  const axis = util.parseAxisParam(attr<number>(args, 'axis'), x.shape)[0];
  const sizes = backend_util.prepareSplitSize(x, attr<number[] | number>(args, 'numOrSizeSplits'), axis);
  const outer = sizeOf(x.shape.slice(0, axis));
  const xInner = sizeOf(x.shape.slice(axis));
  const after = sizeOf(x.shape.slice(axis + 1));
  const be = nativeOf(args);
  let offset = 0;
  return sizes.map((s) => {
    const shape = x.shape.slice();
    shape[axis] = s;
    const inner = s * after;
    const out = allocLike(args, x.dtype, outer * inner);
    if (inner > 0 && outer > 0) be.addon.copy2d(xv, offset, xInner, out, 0, inner, outer, inner);
    offset += inner;
    return be.makeTensorInfo(shape, x.dtype, out);
  });
}

export function layoutKernels(ctx: KernelContext): NativeKernel[] {
  const table: [string, (args: KernelArgs) => TensorInfo | TensorInfo[] | undefined][] = [
    ['Transpose', transpose],
    ['GatherV2', gather],
    ['UnsortedSegmentSum', segmentSum],
    ['Concat', concat],
    ['SplitV', splitV],
  ];
  return table.map(([name, fn]) => {
    const cpu = ctx.fallback(name);
    return { kernelName: name, kernelFunc: (args) => fn(args) ?? cpu(args) };
  });
}
