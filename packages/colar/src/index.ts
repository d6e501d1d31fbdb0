export { colar } from './method.js';
export {
  DEFAULT_COLAR_CONFIG,
  HEAD_KINDS,
  LATENT_DECODINGS,
  LATENT_LOSSES,
  parseColarConfig,
  POOLINGS,
  type ColarConfig,
  type HeadKind,
  type LatentDecoding,
  type LatentLoss,
  type Pooling,
} from './config.js';
export type { ColarState } from './state.js';
export { chainGroups, compressChain, poolingWeight } from './compress.js';
export { groupAdvantages, ppoClipLoss } from './grpo.js';
export { exposureProbe, type ExposureProbe, type ProbeInputs, type ProbeOptions } from './probe.js';
