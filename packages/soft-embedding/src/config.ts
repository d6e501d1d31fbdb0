/**
 * Config of the two single-model latent methods of this package, selected by `variant`:
 *   soft-tokens         paper A (arXiv 2510.00494 v2) §"unified soft-embedding baseline": N_L
 *                       trainable embedding vectors between the question and `###`, whole model
 *                       trained with the LM loss on the answer.
 *   continuous-thought  Coconut (arXiv 2412.06769 v1 §3 "Chain of Continuous Thought", §4 setup):
 *                       the last hidden state is fed back as the next input embedding at N_L
 *                       positions between <bot> and <eot>, trained with a stage curriculum.
 * The config is flat so the lab can validate any arm against one set of defaults; each key says
 * which variant reads it, and the other variant ignores it.
 */
import { parseConfig } from '@telepath/core';

export type SoftEmbeddingVariant = 'soft-tokens' | 'continuous-thought';
export const SOFT_EMBEDDING_VARIANTS: readonly SoftEmbeddingVariant[] = ['soft-tokens', 'continuous-thought'];

export interface SoftEmbeddingConfig {
  variant: SoftEmbeddingVariant;
  /** N_L (both variants): latent positions at evaluation, the budget matched across arms. */
  latentTokens: number;
  /** soft-tokens: training steps of the single 'sft' phase. */
  steps: number;
  /** continuous-thought: c, continuous thoughts that replace one language step. */
  thoughtsPerStep: number;
  /** continuous-thought: first curriculum stage trained (1 = start from a CoT model, 0 = train stage 0 too). */
  firstStage: number;
  /** continuous-thought: training steps of every stage before the last. 0 = no curriculum (final stage only). */
  stepsPerStage: number;
  /** continuous-thought: training steps of the final stage (all language steps replaced). */
  finalStageSteps: number;
  /**
   * continuous-thought: when > 0, the arm's whole step budget, shared equally by its stages (the
   * remainder goes to the final stage) instead of stepsPerStage / finalStageSteps, so arms of every
   * N_L (1 to N_L / c + 1 stages) train for the same number of optimizer steps.
   */
  totalSteps: number;
  /** continuous-thought: probability that a training example gets a uniformly drawn stage instead. */
  uniformProb: number;
  /** Longest generation after the latents. */
  maxNewTokens: number;
  /** Training batches in this many length groups, each padded to its own longest row (core's lengthGroups); 1: one padded batch. */
  lengthBuckets: number;
}

export const DEFAULT_SOFT_EMBEDDING_CONFIG: SoftEmbeddingConfig = {
  variant: 'soft-tokens',
  // Coconut evaluates with 6 thoughts (GSM8K c 2 × 3 stages, ProsQA c 1 × 6 stages, released
  // configs); the same default N_L for soft tokens keeps the two variants budget-matched. Paper A
  // varies N_L over small values ("N_L = 16 singled out as strong for H2", third-party notes).
  latentTokens: 6,
  steps: 1000, // chosen: the same step budget as the No-CoT/CoT references (@telepath/cot)
  // Coconut released configs (facebookresearch/coconut): c_thought 1 for ProsQA/ProntoQA, 2 for GSM8K.
  thoughtsPerStep: 1,
  // Coconut GSM8K released config: initialised from the CoT checkpoint and resumed after stage 0's
  // epochs ("resume: 3" with epochs_per_stage 3), i.e. training starts at stage 1.
  firstStage: 1,
  // Coconut released configs: epochs_per_stage 3 (GSM8K) / 5 (ProsQA). Telepath counts steps, not
  // epochs; chosen: 200 steps of batch 32 ≈ 3 passes over a 2,000-example training set.
  stepsPerStage: 200,
  // Coconut released configs train 25 (GSM8K) / 50 (ProsQA) epochs, so after the last latent
  // stage 13 / 15 epochs remain with every step replaced; chosen: 3 stages' worth of steps.
  finalStageSteps: 600,
  totalSteps: 0, // chosen: off, the per-stage budget above; the step-matched comparisons set it
  // Coconut released configs: uniform_prob 0.0 for the main results (README suggests 0.3 for the
  // analysis runs of §5).
  uniformProb: 0,
  maxNewTokens: 64, // chosen: as @telepath/cot; Coconut generates ≤ 64 (GSM8K) / 128 tokens
  lengthBuckets: 1, // chosen: one padded batch, as every recorded run was trained (the same loss either way)
};

/** N_L = maxLatentStage × c for continuous thought. */
export function maxLatentStage(c: SoftEmbeddingConfig): number {
  return c.latentTokens / c.thoughtsPerStep;
}

/** Parses and checks a config; errors name the key and the valid values. */
export function resolveConfig(raw: unknown): SoftEmbeddingConfig {
  const c = parseConfig(DEFAULT_SOFT_EMBEDDING_CONFIG, raw, 'soft-embedding');
  if (!SOFT_EMBEDDING_VARIANTS.includes(c.variant)) {
    throw new Error(
      `soft-embedding: unknown variant "${c.variant}". Expected one of: ${SOFT_EMBEDDING_VARIANTS.join(', ')}`,
    );
  }
  const int = (k: keyof SoftEmbeddingConfig, min: number) => {
    const v = c[k] as number;
    if (!Number.isInteger(v) || v < min) throw new Error(`soft-embedding: ${k} must be an integer ≥ ${min}, got ${v}`);
  };
  int('latentTokens', 1);
  int('maxNewTokens', 1);
  int('lengthBuckets', 1);
  if (c.variant === 'soft-tokens')
    int('steps', 0); // 0: evaluate the weights an initFrom arm ended with
  else {
    int('thoughtsPerStep', 1);
    int('firstStage', 0);
    int('stepsPerStage', 0);
    int('finalStageSteps', 0);
    int('totalSteps', 0);
    // Moved off its default (a resolved config, as the lab passes, carries every key, so presence says nothing).
    const set = (k: 'stepsPerStage' | 'finalStageSteps') => c[k] !== DEFAULT_SOFT_EMBEDDING_CONFIG[k];
    if (c.totalSteps > 0 && (set('stepsPerStage') || set('finalStageSteps'))) {
      throw new Error(
        'soft-embedding: set either totalSteps (shared equally by the stages) or stepsPerStage and finalStageSteps, not both',
      );
    }
    if (c.latentTokens % c.thoughtsPerStep !== 0) {
      throw new Error(
        `soft-embedding: latentTokens (${c.latentTokens}) must be a multiple of thoughtsPerStep (${c.thoughtsPerStep}); N_L = stages × c`,
      );
    }
    if (c.firstStage > maxLatentStage(c) + 1)
      throw new Error(`soft-embedding: firstStage (${c.firstStage}) is past the final stage ${maxLatentStage(c) + 1}`);
    if (!(c.uniformProb >= 0 && c.uniformProb <= 1))
      throw new Error(`soft-embedding: uniformProb must be in [0, 1], got ${c.uniformProb}`);
  }
  return c;
}
