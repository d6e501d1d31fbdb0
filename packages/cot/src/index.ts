export { cot } from './method.js';
export type { CotState } from './state.js';
export { COT_VARIANTS, DEFAULT_COT_CONFIG, type CotConfig, type CotVariant } from './config.js';
