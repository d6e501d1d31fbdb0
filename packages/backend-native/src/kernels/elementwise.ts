/**
 * Elementwise kernels: broadcasting binary ops, unary ops, AddN, fills, the fused tanh-GELU
 * pair, and the bias + activation epilogue of _FusedMatMul. float32 only; other dtypes use
 * the cpu kernels.
 */
import { broadcast_util, type TensorInfo } from '@tensorflow/tfjs-core';
import {
  attr,
  inputList,
  type KernelArgs,
  type KernelContext,
  META,
  type NativeKernel,
  type NativeKernelFunc,
  nativeOf,
  sizeOf,
} from './context.js';

/** tfjs kernel name → native binary op name. */
const BINARY: Record<string, string> = {
  Add: 'add',
  Sub: 'sub',
  Multiply: 'mul',
  RealDiv: 'div',
  Maximum: 'max',
  Minimum: 'min',
  SquaredDifference: 'sqdiff',
  Pow: 'pow',
};

/** tfjs kernel name → native comparison op name (bool output). */
const COMPARE: Record<string, string> = {
  Equal: 'eq',
  NotEqual: 'ne',
  Greater: 'gt',
  GreaterEqual: 'ge',
  Less: 'lt',
  LessEqual: 'le',
};

/** tfjs kernel name → native unary op name and how to read (alpha, beta) from the attrs. */
const UNARY: Record<string, { op: string; params?: (args: KernelArgs) => [number, number] }> = {
  Neg: { op: 'neg' },
  Exp: { op: 'exp' },
  Log: { op: 'log' },
  Tanh: { op: 'tanh' },
  Sqrt: { op: 'sqrt' },
  Rsqrt: { op: 'rsqrt' },
  Square: { op: 'square' },
  Reciprocal: { op: 'reciprocal' },
  Relu: { op: 'relu' },
  Sigmoid: { op: 'sigmoid' },
  Abs: { op: 'abs' },
  Erf: { op: 'erf' },
  Relu6: { op: 'relu6' },
  Elu: { op: 'elu' },
  LeakyRelu: { op: 'leakyRelu', params: (a) => [attr<number>(a, 'alpha'), 0] },
  Step: { op: 'step', params: (a) => [attr<number>(a, 'alpha') ?? 0, 0] },
  ClipByValue: { op: 'clip', params: (a) => [attr<number>(a, 'clipValueMin'), attr<number>(a, 'clipValueMax')] },
};

/** Writes [rank, out dims, a dims, b dims] (inputs padded with leading 1s) into META; the output shape, or undefined. */
function broadcastMeta(a: TensorInfo, b: TensorInfo): number[] | undefined {
  let shape: number[];
  try {
    shape = broadcast_util.assertAndGetBroadcastShape(a.shape, b.shape);
  } catch {
    return undefined;
  }
  const rank = shape.length;
  if (rank > 12) return undefined;
  META[0] = rank;
  for (let i = 0; i < rank; i++) {
    META[1 + i] = shape[i];
    const ia = i - (rank - a.shape.length);
    const ib = i - (rank - b.shape.length);
    META[1 + rank + i] = ia >= 0 ? a.shape[ia] : 1;
    META[1 + 2 * rank + i] = ib >= 0 ? b.shape[ib] : 1;
  }
  return shape;
}

/** out = op(a, b) with broadcasting, or undefined when not float32 or shapes do not broadcast. */
export function nativeBinary(args: KernelArgs, op: number, a: TensorInfo, b: TensorInfo): TensorInfo | undefined {
  const be = nativeOf(args);
  const av = be.f32(a);
  const bv = be.f32(b);
  if (!av || !bv) return undefined;
  const shape = broadcastMeta(a, b);
  if (!shape) return undefined;
  const out = be.allocF32(sizeOf(shape));
  be.addon.binary(op, av, bv, out, META);
  return be.outF32(shape, out);
}

function nativeCompare(args: KernelArgs, op: number, a: TensorInfo, b: TensorInfo): TensorInfo | undefined {
  const be = nativeOf(args);
  const av = be.f32(a);
  const bv = be.f32(b);
  if (!av || !bv) return undefined;
  const shape = broadcastMeta(a, b);
  if (!shape) return undefined;
  const out = new Uint8Array(sizeOf(shape));
  be.addon.compare(op, av, bv, out, META);
  return be.makeTensorInfo(shape, 'bool', out);
}

/** Cast to float32 into a pooled buffer (the cpu kernel keeps int32/bool arrays under a float32 dtype). */
function cast(args: KernelArgs): TensorInfo | undefined {
  const { x } = args.inputs;
  const dtype = attr<string>(args, 'dtype');
  const be = nativeOf(args);
  const vals = be.data.get(x.dataId)?.values;
  if (dtype === x.dtype && vals instanceof Float32Array) return be.share(x);
  if (
    dtype !== 'float32' ||
    !(vals instanceof Float32Array || vals instanceof Int32Array || vals instanceof Uint8Array)
  )
    return undefined;
  if (x.dtype !== 'float32' && x.dtype !== 'int32' && x.dtype !== 'bool') return undefined;
  const out = be.allocF32(vals.length);
  out.set(vals);
  return be.outF32(x.shape, out);
}

/** out = op(x), or undefined when x is not float32. */
export function nativeUnary(args: KernelArgs, op: number, x: TensorInfo, alpha = 0, beta = 0): TensorInfo | undefined {
  const be = nativeOf(args);
  const xv = be.f32(x);
  if (!xv) return undefined;
  const out = be.allocF32(xv.length);
  be.addon.unary(op, xv, out, alpha, beta);
  return be.outF32(x.shape, out);
}

/** The epilogue of _FusedMatMul: + bias, then the activation. Consumes `prod`. */
export function applyActivation(
  ctx: KernelContext,
  args: KernelArgs,
  prod: TensorInfo,
  bias: TensorInfo | undefined,
  activation: string,
  alpha: number | undefined,
  prelu: TensorInfo | undefined,
): TensorInfo {
  const be = nativeOf(args);
  let cur = prod;
  const step = (next: TensorInfo) => {
    be.disposeIntermediateTensorInfo(cur);
    cur = next;
  };
  if (bias)
    step(
      nativeBinary(args, ctx.ops.binary.add, cur, bias) ??
        (ctx.fallback('Add')({ ...args, inputs: { a: cur, b: bias } }) as TensorInfo),
    );
  const unaryOp = (name: string, a = 0) => step(nativeUnary(args, ctx.ops.unary[name], cur, a)!);
  switch (activation) {
    case 'linear':
      break;
    case 'relu':
    case 'relu6':
    case 'elu':
    case 'sigmoid':
      unaryOp(activation);
      break;
    case 'leakyrelu':
      unaryOp('leakyRelu', alpha ?? 0.2);
      break;
    case 'prelu':
      step(ctx.fallback('Prelu')({ ...args, inputs: { x: cur, alpha: prelu! } }) as TensorInfo);
      break;
    default:
      be.disposeIntermediateTensorInfo(cur);
      throw new Error(
        `_FusedMatMul: unknown activation '${activation}'. Expected one of: linear, relu, relu6, elu, sigmoid, leakyrelu, prelu`,
      );
  }
  return cur;
}

function fillKernel(
  name: string,
  fallback: NativeKernelFunc,
  value: (args: KernelArgs) => number | undefined,
  shape: (args: KernelArgs) => number[],
): NativeKernel {
  return {
    kernelName: name,
    kernelFunc: (args) => {
      const v = value(args);
      if (v === undefined) return fallback(args);
      const s = shape(args);
      const be = nativeOf(args);
      const out = be.allocF32(sizeOf(s));
      out.fill(v);
      return be.outF32(s, out);
    },
  };
}

export function elementwiseKernels(ctx: KernelContext): NativeKernel[] {
  const kernels: NativeKernel[] = [];
  for (const [name, op] of Object.entries(BINARY)) {
    const code = ctx.ops.binary[op];
    const cpu = ctx.fallback(name);
    kernels.push({
      kernelName: name,
      kernelFunc: (args) => nativeBinary(args, code, args.inputs.a, args.inputs.b) ?? cpu(args),
    });
  }
  for (const [name, op] of Object.entries(COMPARE)) {
    const code = ctx.ops.compare[op];
    const cpu = ctx.fallback(name);
    kernels.push({
      kernelName: name,
      kernelFunc: (args) => nativeCompare(args, code, args.inputs.a, args.inputs.b) ?? cpu(args),
    });
  }
  const cpuCast = ctx.fallback('Cast');
  kernels.push({ kernelName: 'Cast', kernelFunc: (args) => cast(args) ?? cpuCast(args) });
  for (const [name, { op, params }] of Object.entries(UNARY)) {
    const code = ctx.ops.unary[op];
    const cpu = ctx.fallback(name);
    kernels.push({
      kernelName: name,
      kernelFunc: (args) => {
        const [alpha, beta] = params ? params(args) : [0, 0];
        return nativeUnary(args, code, args.inputs.x, alpha, beta) ?? cpu(args);
      },
    });
  }
  const cpuAddN = ctx.fallback('AddN');
  kernels.push({
    kernelName: 'AddN',
    kernelFunc: (args) => {
      const list = inputList(args);
      const be = nativeOf(args);
      const vals = list.map((t) => be.f32(t));
      if (list.length === 0 || vals.some((v) => !v) || list.some((t) => sizeOf(t.shape) !== sizeOf(list[0].shape)))
        return cpuAddN(args);
      const out = be.allocF32(sizeOf(list[0].shape));
      be.addon.addN(vals as Float32Array[], out);
      return be.outF32(list[0].shape, out);
    },
  });
  const floatLike = (args: KernelArgs, v: number) => (args.inputs.x.dtype === 'float32' ? v : undefined);
  kernels.push(
    fillKernel(
      'ZerosLike',
      ctx.fallback('ZerosLike'),
      (a) => floatLike(a, 0),
      (a) => a.inputs.x.shape,
    ),
  );
  kernels.push(
    fillKernel(
      'OnesLike',
      ctx.fallback('OnesLike'),
      (a) => floatLike(a, 1),
      (a) => a.inputs.x.shape,
    ),
  );
  kernels.push(
    fillKernel(
      'Fill',
      ctx.fallback('Fill'),
      (a) =>
        attr<string>(a, 'dtype') === 'float32' && typeof attr(a, 'value') === 'number'
          ? attr<number>(a, 'value')
          : undefined,
      (a) => attr<number[]>(a, 'shape'),
    ),
  );
  return kernels;
}
