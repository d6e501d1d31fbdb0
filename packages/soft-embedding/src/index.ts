export { softEmbedding } from './method.js';
export {
  DEFAULT_SOFT_EMBEDDING_CONFIG,
  SOFT_EMBEDDING_VARIANTS,
  maxLatentStage,
  resolveConfig,
  type SoftEmbeddingConfig,
  type SoftEmbeddingVariant,
} from './config.js';
export { curriculumPhases, finalStage, stageAt, stageLayout, type CurriculumPhase } from './curriculum.js';
export { SOFT_TOKENS_PARAM, type SoftEmbeddingState } from './state.js';
