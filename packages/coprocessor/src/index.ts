export { coprocessor } from './method.js';
export {
  COPROCESSOR_VARIANTS,
  DEFAULT_COPROCESSOR_CONFIG,
  VARIANTS,
  type CoprocessorConfig,
  type CoprocessorVariant,
  type Injection,
  type VariantSpec,
} from './config.js';
export type { CoprocessorState } from './state.js';
export {
  continueBase,
  controlLatents,
  createCoprocessor,
  encodePrompts,
  runCoprocessor,
  usedParamNames,
  type Coprocessor,
  type CoprocessorOutput,
  type Latents,
  type PromptCache,
} from './model.js';
