/** Names of the custom kernels behind core's fused ops (see src/kernels/fused.ts for their contracts). */
export const FUSED_KERNELS = {
  geluTanh: 'TelepathGeluTanh',
  geluTanhGrad: 'TelepathGeluTanhGrad',
  layerNorm: 'TelepathLayerNorm',
  layerNormGrad: 'TelepathLayerNormGrad',
  adamW: 'TelepathAdamW',
  scaledMaskedSoftmax: 'TelepathScaledMaskedSoftmax',
  softmaxGrad: 'TelepathSoftmaxGrad',
} as const;
