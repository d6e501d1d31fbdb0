/**
 * Config of CoLaR, "Think Silently, Think Fast: Dynamic Latent Compression of LLM Reasoning
 * Chains" (Tan et al., NeurIPS 2025, arXiv 2505.16552): compression of the reasoning chain,
 * the latent head, the SFT losses, inference at a chosen speed and the GRPO phase.
 * Provenance tags follow house rule 10 (docs/contributing.md §7); the facts are collected in the
 * method reference (docs/method-reference.md §5). Where the released code differs from the paper, the
 * behaviour is a key here and the difference is said in words.
 */

import { parseConfig } from '@telepath/core';

/** How a group of c token embeddings becomes one compressed embedding. */
export type Pooling = 'scaled-sum' | 'mean';
/** The latent head: a diagonal Gaussian, or the deterministic ablation ("-DL", σ = 1e-9). */
export type HeadKind = 'gaussian' | 'deterministic';
/** The latent loss of SFT: soft-MSE on a reparameterised sample, or the Gaussian NLL. */
export type LatentLoss = 'soft-mse' | 'nll';
/** Inference: sample latents and the stop token, or take the head's mean and the argmax token. */
export type LatentDecoding = 'sample' | 'greedy';

export interface ColarConfig {
  /** Steps of the 'sft' phase (compressed chains, random speed per step). */
  sftSteps: number;
  /** Steps of the 'rl' phase (GRPO); 0 leaves the phase out. */
  rlSteps: number;
  /** Speed c used at inference and in the RL rollouts ("CoLaR-c" is tested at c). */
  compressionFactor: number;
  /** SFT draws one c per step uniformly from 1..maxCompressionFactor … */
  maxCompressionFactor: number;
  /** … or, when this list is non-empty, uniformly from the list (e.g. [1, 3, 5, 7], Fig. 4). */
  trainSpeeds: number[];
  pooling: Pooling;
  headKind: HeadKind;
  /** Hidden width of the latent head's MLP as a multiple of the LM width. */
  headWidthRatio: number;
  latentLoss: LatentLoss;
  /** Train the LM's embedding table (tied to its output head) too; frozen by default, so the latent targets and their scale stay fixed. */
  trainEmbeddings: boolean;
  ceWeight: number;
  latentWeight: number;
  /** Weight of the head's entropy, added to the loss (a negative weight rewards entropy). */
  entropyWeight: number;
  /** Speed text appended to the prompt; `{c}` becomes the speed. Words missing from a small vocabulary encode as <unk>; the digit carries the speed. */
  speedPrompt: string;
  /**
   * Not in the paper: a learnt vector per speed (zeros at the start) added to the opening ###'s
   * input, so a model can read the speed where the prompt's digit is a token its reference never
   * trained (ProsQA). false: the paper's prompt alone.
   */
  speedVector: boolean;
  decoding: LatentDecoding;
  latentTemperature: number;
  /** Temperature of the token sampled after each latent to decide whether to stop (### = stop). */
  stopTemperature: number;
  /** Cap on latents per answer (also bounded by the context length). */
  maxLatents: number;
  /** Cap on answer tokens after the closing ### (the lab's eval.maxNewTokens wins when set). */
  maxNewTokens: number;
  /** Evaluation passes over every question with sampled decoding (mean and spread reported); greedy decoding runs once. */
  evalPasses: number;
  /** GRPO: rollouts per question. */
  groupSize: number;
  /** GRPO: questions (taken from the step's batch) rolled out each time the buffer is empty. */
  rolloutQuestions: number;
  /** GRPO: rollouts per optimizer step, drawn from the buffer. */
  rlMinibatch: number;
  clipEpsilon: number;
  /** GRPO: each sequence's loss is a mean over its latents (and one over its answer tokens) — the length pressure; off = masked sum ÷ sumNormaliser. */
  averagePerToken: boolean;
  sumNormaliser: number;
  /** Learning rate of the 'rl' phase (the experiment's optimizer settings otherwise). */
  rlLr: number;
  /**
   * Not in the paper: the share of SFT reasoning groups fed as the head's own latent (predicted
   * from the true prefix) instead of the true compressed embedding — scheduled sampling (self-feed.ts). 0: the paper's SFT.
   */
  selfFeedShare: number;
}

export const DEFAULT_COLAR_CONFIG: ColarConfig = {
  sftSteps: 500, // chosen: CoLaR starts from a converged CoT model; enough for Countdown-3 here
  rlSteps: 0, // chosen: SFT only unless an arm asks for the RL phase
  compressionFactor: 5, // CoLaR released config, not stated in the paper: compression_factor 5 at test (2 for MATH, Table 2)
  maxCompressionFactor: 5, // CoLaR released config, not stated in the paper: max_compression_factor 5, c uniform in [1, 5] ("CoLaR-c" = one model tested at c, Table 1)
  trainSpeeds: [], // CoLaR arXiv:2505.16552 Fig. 4 trains on {1, 3, 5, 7}; empty = the main setting 1..max
  pooling: 'scaled-sum', // CoLaR arXiv:2505.16552 (Embedding Compress): e_c = Σ e_i / √n; mean pooling is the "-MP" ablation of Table 1 (41.7 → 38.3 at c = 5)
  headKind: 'gaussian', // CoLaR arXiv:2505.16552: the head predicts μ and σ, e = μ + σ·ε; "-DL" (Table 1) is the deterministic ablation
  headWidthRatio: 1, // CoLaR released config, not stated in the paper: head width 2048 on Llama-3.2-1B, whose width is 2048
  latentLoss: 'soft-mse', // CoLaR released config, not stated in the paper: loss "mse" on GSM ("nll" on MATH, where RL starts from CoLaR-NLL, Table 2)
  trainEmbeddings: false, // CoLaR released config, not stated in the paper: the base model and its embeddings are frozen (LoRA r 128 on q/v + the head train); we have no LoRA, so every other LM weight trains
  ceWeight: 1, // CoLaR released config, not stated in the paper: ce_weight 1
  latentWeight: 1, // CoLaR released config, not stated in the paper: embed_modeling_weight 1
  entropyWeight: 0, // CoLaR released config, not stated in the paper: entropy_weight 0 (the paper's soft-MSE has −α·H with α unstated)
  speedPrompt: 'Thinking speed: {c}', // CoLaR released config, not stated in the paper: "(Thinking speed: {c})" after the question
  speedVector: false, // chosen: the paper's speed prompt alone; true is our addition (docs/results/prosqa-methods.md: CoLaR on ProsQA ignores the speed digit)
  decoding: 'sample', // CoLaR released config, not stated in the paper: latents and the stop token are sampled at inference
  latentTemperature: 1, // CoLaR released config, not stated in the paper: latent_temperature 1.0
  stopTemperature: 1, // CoLaR released config, not stated in the paper: eol_temperature 1.0
  maxLatents: 64, // CoLaR released config, not stated in the paper: max_n_latent_forward 64 on GSM (128 on MATH)
  maxNewTokens: 16, // CoLaR released config, not stated in the paper: max_new_tokens 16 for the answer
  evalPasses: 5, // CoLaR arXiv:2505.16552 Table 1: accuracy and #L are means over 5 runs (± 95 % CI); released code: seeds 0-4, sampling on
  groupSize: 8, // CoLaR released config, not stated in the paper: 8 rollouts per question
  rolloutQuestions: 8, // chosen: the released config rolls out 512 questions per epoch; 8 keeps a buffer small on 2 cores
  rlMinibatch: 8, // CoLaR released config, not stated in the paper: exp_batch_size 8, one pass, an optimizer step each
  clipEpsilon: 0.2, // CoLaR released config, not stated in the paper: PPO clip ε 0.2
  averagePerToken: true, // CoLaR arXiv:2505.16552 Table 2: "w/o average" collapses to the 128 cap; the released yaml sets False (the ablation), the loss class defaults to True
  sumNormaliser: 32, // CoLaR released config, not stated in the paper: without averaging the masked sum is divided by 32
  rlLr: 1e-6, // CoLaR released config, not stated in the paper: RL lr 1e-6 (SFT 1e-4)
  selfFeedShare: 0, // chosen: the paper's SFT (true compressed embeddings only); > 0 is our addition, scheduled sampling (Bengio et al. 2015)
};

export const POOLINGS: readonly Pooling[] = ['scaled-sum', 'mean'];
export const HEAD_KINDS: readonly HeadKind[] = ['gaussian', 'deterministic'];
export const LATENT_LOSSES: readonly LatentLoss[] = ['soft-mse', 'nll'];
export const LATENT_DECODINGS: readonly LatentDecoding[] = ['sample', 'greedy'];

/** Defaults with the overrides applied; unknown keys, wrong types and invalid values throw with the valid choices. */
export function parseColarConfig(overrides: unknown): ColarConfig {
  const c = parseConfig(DEFAULT_COLAR_CONFIG, overrides, 'colar');
  const oneOf = <T extends string>(key: keyof ColarConfig, value: T, valid: readonly T[]) => {
    if (!valid.includes(value))
      throw new Error(`colar: unknown ${key} "${value}". Expected one of: ${valid.join(', ')}`);
  };
  oneOf('pooling', c.pooling, POOLINGS);
  oneOf('headKind', c.headKind, HEAD_KINDS);
  oneOf('latentLoss', c.latentLoss, LATENT_LOSSES);
  oneOf('decoding', c.decoding, LATENT_DECODINGS);
  const positive = [
    'compressionFactor',
    'maxCompressionFactor',
    'maxLatents',
    'maxNewTokens',
    'evalPasses',
    'groupSize',
    'rolloutQuestions',
    'rlMinibatch',
  ] as const;
  for (const k of positive)
    if (!Number.isInteger(c[k]) || c[k] < 1) throw new Error(`colar: ${k} must be an integer ≥ 1, got ${c[k]}`);
  for (const k of ['sftSteps', 'rlSteps'] as const)
    if (!Number.isInteger(c[k]) || c[k] < 0) throw new Error(`colar: ${k} must be an integer ≥ 0, got ${c[k]}`);
  for (const s of c.trainSpeeds)
    if (!Number.isInteger(s) || s < 1)
      throw new Error(`colar: trainSpeeds must hold integers ≥ 1, got ${JSON.stringify(c.trainSpeeds)}`);
  if (c.groupSize < 2)
    throw new Error(`colar: groupSize must be ≥ 2 (advantages are normalised within a group), got ${c.groupSize}`);
  if (!c.speedPrompt.includes('{c}'))
    throw new Error(`colar: speedPrompt must contain "{c}", got ${JSON.stringify(c.speedPrompt)}`);
  if (c.headKind === 'deterministic' && c.latentLoss === 'nll')
    throw new Error('colar: the NLL latent loss needs the gaussian head (the deterministic head has σ = 1e-9)');
  if (c.headKind === 'deterministic' && c.rlSteps > 0)
    throw new Error(
      'colar: the rl phase needs the gaussian head (latent log-densities of a deterministic head are degenerate)',
    );
  if (!(c.clipEpsilon > 0 && c.clipEpsilon < 1))
    throw new Error(`colar: clipEpsilon must be in (0, 1), got ${c.clipEpsilon}`);
  if (!(c.selfFeedShare >= 0 && c.selfFeedShare <= 1))
    throw new Error(`colar: selfFeedShare must be in [0, 1], got ${c.selfFeedShare}`);
  if (!(c.headWidthRatio > 0)) throw new Error(`colar: headWidthRatio must be > 0, got ${c.headWidthRatio}`);
  return c;
}
