export { cot, type CotState } from './method.js';
export { COT_VARIANTS, DEFAULT_COT_CONFIG, type CotConfig, type CotVariant } from './config.js';
