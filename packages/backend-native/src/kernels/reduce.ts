/**
 * Reductions over any axes (Sum, Mean, Max, Min, Prod; double accumulation for sums, as the
 * cpu backend) and Softmax over the last axis. float32 only.
 */
import { util } from '@tensorflow/tfjs-core';
import { attr, type KernelArgs, type KernelContext, META, type NativeKernel, nativeOf, sizeOf } from './context.js';

/** tfjs kernel → native op and the attribute holding the axes (Max calls it reductionIndices). */
const REDUCE: Record<string, { op: string; axisAttr: string }> = {
  Sum: { op: 'sum', axisAttr: 'axis' },
  Mean: { op: 'mean', axisAttr: 'axis' },
  Max: { op: 'max', axisAttr: 'reductionIndices' },
  Min: { op: 'min', axisAttr: 'axis' },
  Prod: { op: 'prod', axisAttr: 'axis' },
};

function nativeReduce(args: KernelArgs, op: number, axisAttr: string) {
  const { x } = args.inputs;
  const be = nativeOf(args);
  const xv = be.f32(x);
  const rank = x.shape.length;
  if (!xv || rank > 12) return undefined;
  const axes = util.parseAxisParam(attr<number | number[]>(args, axisAttr) ?? null, x.shape);
  const keepDims = attr<boolean>(args, 'keepDims') ?? false;
  META[0] = rank;
  for (let i = 0; i < rank; i++) {
    META[1 + i] = x.shape[i];
    META[1 + rank + i] = 0;
  }
  for (const a of axes) META[1 + rank + a] = 1;
  const shape: number[] = [];
  for (let i = 0; i < rank; i++) {
    if (META[1 + rank + i] === 0) shape.push(x.shape[i]);
    else if (keepDims) shape.push(1);
  }
  const out = be.allocF32(sizeOf(shape));
  be.addon.reduce(op, xv, out, META);
  return be.outF32(shape, out);
}

export function reduceKernels(ctx: KernelContext): NativeKernel[] {
  const kernels: NativeKernel[] = [];
  for (const [name, { op, axisAttr }] of Object.entries(REDUCE)) {
    const code = ctx.ops.reduce[op];
    const cpu = ctx.fallback(name);
    kernels.push({ kernelName: name, kernelFunc: (args) => nativeReduce(args, code, axisAttr) ?? cpu(args) });
  }
  const cpuSoftmax = ctx.fallback('Softmax');
  kernels.push({
    kernelName: 'Softmax',
    kernelFunc: (args) => {
      const { logits } = args.inputs;
      const be = nativeOf(args);
      const xv = be.f32(logits);
      const rank = logits.shape.length;
      const dim = attr<number>(args, 'dim');
      if (!xv || rank === 0 || (dim !== -1 && dim !== rank - 1)) return cpuSoftmax(args);
      const cols = logits.shape[rank - 1];
      const out = be.allocF32(xv.length);
      if (cols > 0) be.addon.softmax(xv, out, cols);
      return be.outF32(logits.shape, out);
    },
  });
  return kernels;
}
