/** Every native kernel, by tfjs kernel name. */
import type { KernelContext, NativeKernel } from './context.js';
import { elementwiseKernels } from './elementwise.js';
import { fusedKernels } from './fused.js';
import { layoutKernels } from './layout.js';
import { matmulKernels } from './matmul.js';
import { reduceKernels } from './reduce.js';
import { slicePadKernels } from './slice-pad.js';

export { FUSED } from './fused.js';
export { opCodes } from './context.js';

export function nativeKernels(ctx: KernelContext): NativeKernel[] {
  return [
    ...matmulKernels(ctx),
    ...elementwiseKernels(ctx),
    ...reduceKernels(ctx),
    ...layoutKernels(ctx),
    ...slicePadKernels(ctx),
    ...fusedKernels(ctx),
  ];
}
