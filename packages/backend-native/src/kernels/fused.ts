/**
 * Custom kernels behind core's fused ops (registered only on this backend):
 *   TelepathGeluTanh {x} → y; TelepathGeluTanhGrad {dy, x} → dx.
 *   TelepathLayerNorm {x [..., C], gamma [C], beta [C]} {eps} → [y [..., C], mean [...], rstd [...]].
 *   TelepathLayerNormGrad {dy, x, gamma, mean, rstd} → [dx [..., C], dgamma [C], dbeta [C]].
 *   TelepathAdamW {param, m, v, grad} {lr, beta1, beta2, eps, weightDecay, c1, c2} → [param', m', v'].
 *   TelepathScaledMaskedSoftmax {x [..., S], bias (broadcasts to x)} {scale} → softmax(scale·x + bias)
 *     (attention probabilities); TelepathSoftmaxGrad {dy, y} {scale} → scale·y·(dy − Σ dy·y).
 * register() registers the gradients of GELU, LayerNorm and the softmax through the Grad kernels.
 * float32 only; they throw on anything else (callers check `tf.getKernel(name, backend)` first).
 */
import type { TensorInfo } from '@tensorflow/tfjs-core';
import { attr, type KernelArgs, type KernelContext, META, type NativeKernel, nativeOf } from './context.js';
import { nativeUnary } from './elementwise.js';
import { FUSED_KERNELS } from '../fused-names.js';

const FUSED = FUSED_KERNELS;
export { FUSED };

function floats(args: KernelArgs, kernel: string, names: string[]): Float32Array[] {
  const be = nativeOf(args);
  return names.map((n) => {
    const t = args.inputs[n];
    const v = t ? be.f32(t) : undefined;
    if (!v) throw new Error(`${kernel}: input '${n}' must be a float32 tensor${t ? `, got ${t.dtype}` : ''}`);
    return v;
  });
}

function layerNorm(args: KernelArgs): TensorInfo[] {
  const [x, gamma, beta] = floats(args, FUSED.layerNorm, ['x', 'gamma', 'beta']);
  const shape = args.inputs.x.shape;
  const C = shape[shape.length - 1];
  if (gamma.length !== C || beta.length !== C)
    throw new Error(`${FUSED.layerNorm}: gamma and beta must have ${C} values`);
  const be = nativeOf(args);
  const y = be.allocF32(x.length);
  const mean = be.allocF32(x.length / C);
  const rstd = be.allocF32(x.length / C);
  be.addon.layerNorm(x, gamma, beta, y, mean, rstd, C, attr<number>(args, 'eps'));
  const rows = shape.slice(0, -1);
  return [be.outF32(shape, y), be.outF32(rows, mean), be.outF32(rows, rstd)];
}

function layerNormGrad(args: KernelArgs): TensorInfo[] {
  const [dy, x, gamma, mean, rstd] = floats(args, FUSED.layerNormGrad, ['dy', 'x', 'gamma', 'mean', 'rstd']);
  const shape = args.inputs.x.shape;
  const C = shape[shape.length - 1];
  if (dy.length !== x.length || gamma.length !== C || mean.length * C !== x.length || rstd.length !== mean.length)
    throw new Error(`${FUSED.layerNormGrad}: inconsistent shapes`);
  const be = nativeOf(args);
  const dx = be.allocF32(x.length);
  const dgamma = be.allocF32(C);
  const dbeta = be.allocF32(C);
  be.addon.layerNormGrad(dy, x, gamma, mean, rstd, dx, dgamma, dbeta, C);
  return [be.outF32(shape, dx), be.outF32([C], dgamma), be.outF32([C], dbeta)];
}

function adamW(args: KernelArgs): TensorInfo[] {
  const [p, m, v, g] = floats(args, FUSED.adamW, ['param', 'm', 'v', 'grad']);
  if (m.length !== p.length || v.length !== p.length || g.length !== p.length)
    throw new Error(`${FUSED.adamW}: param, m, v and grad must have the same size`);
  const be = nativeOf(args);
  const out = [be.allocF32(p.length), be.allocF32(p.length), be.allocF32(p.length)];
  const a = (n: string) => attr<number>(args, n);
  be.addon.adamw(
    p,
    m,
    v,
    g,
    out[0],
    out[1],
    out[2],
    a('lr'),
    a('beta1'),
    a('beta2'),
    a('eps'),
    a('weightDecay') ?? 0,
    a('c1'),
    a('c2'),
  );
  const shape = args.inputs.param.shape;
  return out.map((o) => be.outF32(shape, o));
}

function scaledMaskedSoftmax(args: KernelArgs): TensorInfo {
  const [x, bias] = floats(args, FUSED.scaledMaskedSoftmax, ['x', 'bias']);
  const xs = args.inputs.x.shape;
  const bs = args.inputs.bias.shape;
  const rank = xs.length;
  if (rank === 0 || rank > 12 || bs.length > rank)
    throw new Error(`${FUSED.scaledMaskedSoftmax}: bias [${bs}] must broadcast to x [${xs}]`);
  META[0] = rank;
  for (let i = 0; i < rank; i++) {
    META[1 + i] = xs[i];
    const j = i - (rank - bs.length);
    const d = j >= 0 ? bs[j] : 1;
    if (d !== 1 && d !== xs[i])
      throw new Error(`${FUSED.scaledMaskedSoftmax}: bias [${bs}] must broadcast to x [${xs}]`);
    META[1 + rank + i] = d;
  }
  const be = nativeOf(args);
  const y = be.allocF32(x.length);
  be.addon.scaledMaskedSoftmax(x, bias, y, META, attr<number>(args, 'scale'));
  return be.outF32(xs, y);
}

function softmaxGrad(args: KernelArgs): TensorInfo {
  const [dy, y] = floats(args, FUSED.softmaxGrad, ['dy', 'y']);
  const shape = args.inputs.y.shape;
  if (dy.length !== y.length || shape.length === 0)
    throw new Error(`${FUSED.softmaxGrad}: dy and y must have the same shape`);
  const be = nativeOf(args);
  const dx = be.allocF32(y.length);
  if (y.length > 0) be.addon.softmaxGrad(dy, y, dx, shape[shape.length - 1], attr<number>(args, 'scale'));
  return be.outF32(shape, dx);
}

export function fusedKernels(ctx: KernelContext): NativeKernel[] {
  const geluCode = ctx.ops.unary.geluTanh;
  return [
    {
      kernelName: FUSED.geluTanh,
      kernelFunc: (args) => {
        const out = nativeUnary(args, geluCode, args.inputs.x);
        if (!out) throw new Error(`${FUSED.geluTanh}: x must be float32, got ${args.inputs.x.dtype}`);
        return out;
      },
    },
    {
      kernelName: FUSED.geluTanhGrad,
      kernelFunc: (args) => {
        const [dy, x] = floats(args, FUSED.geluTanhGrad, ['dy', 'x']);
        if (dy.length !== x.length) throw new Error(`${FUSED.geluTanhGrad}: dy and x must have the same size`);
        const be = nativeOf(args);
        const out = be.allocF32(x.length);
        be.addon.geluGrad(x, dy, out);
        return be.outF32(args.inputs.x.shape, out);
      },
    },
    { kernelName: FUSED.layerNorm, kernelFunc: layerNorm },
    { kernelName: FUSED.layerNormGrad, kernelFunc: layerNormGrad },
    { kernelName: FUSED.adamW, kernelFunc: adamW },
    { kernelName: FUSED.scaledMaskedSoftmax, kernelFunc: scaledMaskedSoftmax },
    { kernelName: FUSED.softmaxGrad, kernelFunc: softmaxGrad },
  ];
}
