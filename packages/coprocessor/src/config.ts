/**
 * Config of the Base–Coprocessor latent channel.
 * Papers: Liu et al. 2024, "Deliberation in Latent Space via Differentiable Cache Augmentation",
 * arXiv 2412.17747 (§3 method, §4 ablations: Fig. 2, Fig. 4, Tables 2 and 6); Coda-Forno et al.
 * 2025, "Exploring System 1 and 2 communication for latent reasoning in LLMs", arXiv 2510.00494
 * (H1 wider channel, H2 joint finetuning, matched latent-token budget N_L).
 *
 * The variant is one discriminated field; what it implies lives in `VARIANTS` (never booleans):
 *   liu       Base frozen; the Coprocessor's last-layer states at the N_L soft positions enter
 *             the Base as input embeddings after the prompt (Liu et al.).
 *   h1        Base frozen; the Coprocessor's per-layer keys/values at the N_L positions are
 *             concatenated onto the Base's per-layer cache (paper A, H1).
 *   h2        H1's KV path with the Base trainable too (paper A, H2).
 *   h2-embed  Liu's embedding path with the Base trainable too (paper A does not say which
 *             path its H2 uses, so both are offered).
 */
import { parseConfig } from '@telepath/core';

export type CoprocessorVariant = 'liu' | 'h1' | 'h2' | 'h2-embed';
export type Injection = 'embeddings' | 'kv';
export type AnswerPositions = 'overlap' | 'after-latents';
export const ANSWER_POSITIONS: readonly AnswerPositions[] = ['overlap', 'after-latents'];
export const AHEAD_TEXTS: readonly CoprocessorConfig['aheadText'][] = ['with-steps', 'without-steps'];

export interface VariantSpec {
  /** How the latents reach the Base. */
  injection: Injection;
  /** Whether the Base's weights train (in the task phase). */
  trainBase: boolean;
}

export const VARIANTS: Record<CoprocessorVariant, VariantSpec> = {
  liu: { injection: 'embeddings', trainBase: false }, // Liu arXiv 2412.17747 abstract: "a frozen LLM" augmented by a coprocessor; "decoder frozen" (docs/method-reference.md §2 [paper])
  h1: { injection: 'kv', trainBase: false }, // paper A H1: per-layer [K_l ; K_l^φ], [V_l ; V_l^φ], Base frozen
  h2: { injection: 'kv', trainBase: true }, // paper A H2: "unfreeze the base"; path not stated — chosen: H1's
  'h2-embed': { injection: 'embeddings', trainBase: true }, // the other H2 path, offered because it is free
};

export const COPROCESSOR_VARIANTS = Object.keys(VARIANTS) as CoprocessorVariant[];

export interface CoprocessorConfig {
  variant: CoprocessorVariant;
  /** N_L: soft tokens read by the Coprocessor = latent vectors (or KV positions) handed to the Base. */
  latentTokens: number;
  /** Steps of the task phase ('sft'): answer loss given prompt + latents. */
  steps: number;
  /** Steps of Liu's pretraining-style phase before the task (0 = skipped). */
  pretrainSteps: number;
  /** N_A: tokens predicted after each random insertion point in the pretraining phase. */
  aheadTokens: number;
  /**
   * Text of the pretraining phase: the task's text with its reasoning steps (what a CoT Base was
   * trained on) or without them (prompt and answer: what a No-CoT Base was trained on). Liu trains
   * on the decoder's own pretraining data; pick the one the Base saw.
   */
  aheadText: 'with-steps' | 'without-steps';
  /** h2 / h2-embed only: steps with the Base still frozen before the joint phase (0 = none). */
  frozenBaseSteps: number;
  /**
   * Embedding injection only: z is multiplied by this before the Base reads it as input
   * embeddings; 0 = the std of the Base's token-embedding table (measured at init).
   */
  latentScale: number;
  /** Std of the soft tokens' normal init; 0 = the std of the Base's token-embedding table. */
  softInitStd: number;
  /**
   * Position ids of the Base's continuation (### answer) after the N_L latents:
   *   after-latents  it starts after them (Liu's literal layout: the latents are appended to the
   *                  cache as the next positions), so every latent key sits before the answer;
   *   overlap        it continues from the prompt, the latents' ids overlapping it (core's extraKV
   *                  consumes no ids either); under rotary positions the answer then sees latent
   *                  keys at offsets 0..N_L−1 ahead of itself, which the Base never saw in training,
   *                  but every prompt token stays at the offset the Base was trained with.
   */
  answerPositions: AnswerPositions;
  /** Peak learning rate of every phase of this arm; 0 = the experiment's `train.optim.lr`. */
  lr: number;
  /** Longest generated answer (after the forced ###). */
  maxNewTokens: number;
}

export const DEFAULT_COPROCESSOR_CONFIG: CoprocessorConfig = {
  variant: 'liu',
  latentTokens: 8, // Liu arXiv 2412.17747 Table 2: N_L ∈ {4, 8, 16, 32, 64}; chosen: 8, a small budget (paper A: "beyond small values fails to improve")
  steps: 1000, // chosen: the CoT reference's default, so a coprocessor arm costs ≈ one more reference run
  pretrainSteps: 0, // chosen: off; Liu trains on pretraining data (§3) — here an option on task text
  aheadTokens: 16, // Liu arXiv 2412.17747 Table 6 [third-party]: N_A ∈ {4, 8, 16, 32} → GSM8K 24.03 / 24.11 / 24.72 / 23.73, "16 best"
  aheadText: 'with-steps', // Liu §3: the decoder's own pretraining data; the shipped Liu arms start from No-CoT and set 'without-steps'
  frozenBaseSteps: 0, // chosen: plain joint finetuning, as paper A describes H2
  // [inferred] Liu feeds final-layer states to Gemma-2, which multiplies its token embeddings by
  // √d, so states and token inputs share one scale; this GPT-2-style Base has no √d factor and z
  // (unit RMS after the final LayerNorm) would enter ≈ 1/std times larger than any token. chosen:
  // rescale to the embedding std, as CoLaR arXiv 2505.16552 (released code) scales its latents.
  latentScale: 0,
  softInitStd: 0, // chosen: Liu §3 says only "trainable soft tokens" (init not stated); match the Base's embedding scale
  // chosen: overlap, measured under both position kinds. Learned positions: shifting the answer by
  // N_L broke the trained No-CoT Base (Countdown-3, N_L 4, untrained channel: answer loss 2.80
  // shifted vs 0.78 for H1, whose KV takes no ids). Rotary positions (Liu's Gemma-2, our ProsQA and
  // GSM8K runs), Countdown-3, rotary No-CoT Base at 26.0 %, 200 steps, 1 seed, 200 questions
  // (experiments/coprocessor-rotary-positions.json): overlap / after-latents = H1 N_L 16 31.0 / 17.5 %,
  // Liu N_L 16 29.0 / 15.0 %, H1 N_L 4 30.5 / 16.5 %, Liu N_L 4 27.5 / 13.0 %. After the latents the
  // answer sits N_L positions further from every prompt token than the frozen Base was trained with.
  answerPositions: 'overlap',
  lr: 0, // Liu arXiv 2412.17747: learning rate "not found" (docs/method-reference.md §2); chosen: the experiment's
  maxNewTokens: 32, // chosen: answers are short (Countdown equation, ProsQA sentence, GSM8K number)
};

/** The config with the defaults filled in, every key and range checked (errors name the key and what was expected). */
export function resolveConfig(config: unknown): CoprocessorConfig {
  const c = parseConfig(DEFAULT_COPROCESSOR_CONFIG, config, 'coprocessor');
  if (!COPROCESSOR_VARIANTS.includes(c.variant))
    throw new Error(`coprocessor: unknown variant "${c.variant}". Expected one of: ${COPROCESSOR_VARIANTS.join(', ')}`);
  if (!ANSWER_POSITIONS.includes(c.answerPositions))
    throw new Error(
      `coprocessor: unknown answerPositions "${c.answerPositions}". Expected one of: ${ANSWER_POSITIONS.join(', ')}`,
    );
  if (!AHEAD_TEXTS.includes(c.aheadText))
    throw new Error(`coprocessor: unknown aheadText "${c.aheadText}". Expected one of: ${AHEAD_TEXTS.join(', ')}`);
  for (const k of ['latentTokens', 'aheadTokens', 'maxNewTokens'] as const) {
    if (!Number.isInteger(c[k]) || c[k] < 1)
      throw new Error(`coprocessor: ${k} must be a positive integer, got ${c[k]}`);
  }
  for (const k of ['steps', 'pretrainSteps', 'frozenBaseSteps'] as const) {
    if (!Number.isInteger(c[k]) || c[k] < 0)
      throw new Error(`coprocessor: ${k} must be a non-negative integer, got ${c[k]}`);
  }
  if (c.frozenBaseSteps > 0 && !VARIANTS[c.variant].trainBase)
    throw new Error(
      `coprocessor: frozenBaseSteps applies to h2 and h2-embed only (variant "${c.variant}" never trains the Base)`,
    );
  for (const k of ['softInitStd', 'latentScale', 'lr'] as const)
    if (!(c[k] >= 0)) throw new Error(`coprocessor: ${k} must be ≥ 0, got ${c[k]}`);
  return c;
}
