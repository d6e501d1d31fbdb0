export { coprocessor } from './method.js';
export { COPROCESSOR_VARIANTS, DEFAULT_COPROCESSOR_CONFIG, VARIANTS, type CoprocessorConfig, type CoprocessorVariant, type Injection, type VariantSpec } from './config.js';
export type { CoprocessorState } from './state.js';
export { continueBase, controlLatents, encodePrompts, type Latents, type PromptCache } from './channel.js';
export { createCoprocessor, runCoprocessor, usedParamNames, type Coprocessor, type CoprocessorOutput } from './model.js';
