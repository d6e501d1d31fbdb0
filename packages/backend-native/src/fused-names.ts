/**
 * Names of the custom kernels behind core's fused ops (see src/kernels/fused.ts for their contracts).
 * Core calls the forward kernels by these names (packages/core/src/fused.ts; keep in sync).
 */
export const FUSED_KERNELS = {
  geluTanh: 'TelepathGeluTanh',
  geluTanhGrad: 'TelepathGeluTanhGrad',
  layerNorm: 'TelepathLayerNorm',
  layerNormGrad: 'TelepathLayerNormGrad',
  adamW: 'TelepathAdamW',
  scaledMaskedSoftmax: 'TelepathScaledMaskedSoftmax',
  softmaxGrad: 'TelepathSoftmaxGrad',
} as const;
