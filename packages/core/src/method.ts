/**
 * The contract every method implements (No-CoT/CoT references, soft embeddings, Coconut, the
 * coprocessor arms, CoLaR, thought communication). Core implements no method: it defines the
 * shapes that methods, the lab and the analysis share. A method receives `Example`s and returns
 * `Generation`s; it never knows which task it runs on (scoring lives in the lab).
 */
import type * as tf from '@tensorflow/tfjs-core';
import type { LatentControl } from './controls.js';
import type { OptimConfig } from './optim.js';
import type { Rng } from './rng.js';
import type { TinyLm } from './tiny-lm.js';
import type { Tokenizer } from './tokenizer.js';

export type MethodId = 'cot' | 'soft-embedding' | 'coprocessor' | 'colar' | 'thought-comm';

/** One record schema for every task. */
export interface Example {
  id: string;
  question: string;
  steps: string[];
  answer: string;
  meta?: Record<string, unknown>;
}

/**
 * Scores a generated answer (the text after ###) for an example: 1 correct, 0 wrong. The lab
 * builds it from the task's `isCorrect`, so RL phases can be rewarded without a method knowing
 * the task.
 */
export type RewardFn = (example: Example, answer: string) => number;

export interface MethodContext {
  lm: TinyLm;
  tokenizer: Tokenizer;
  rng: Rng;
  backend: string;
  /** The task's reward; given by the lab when training, absent where no task is known (e.g. re-evaluation). */
  reward?: RewardFn;
}

/** Where training is: the step and the phase ('sft', 'rl', 'stage2', …). */
export interface StepInfo {
  step: number;
  phase: string;
  rng: Rng;
}

export interface GenerateOptions {
  maxNewTokens: number;
  temperature: number;
  topP: number;
  rng: Rng;
  /** Latent methods apply this control (core's applyLatentControl) to their latents; others ignore it. */
  control?: LatentControl;
  /**
   * Decode as the arm does during this training phase (a curriculum stage's own number of latents,
   * e.g. Coconut's `stage2`), for a curve or a mid-training checkpoint; absent: as the finished arm.
   * Methods whose decoding does not change between phases ignore it.
   */
  phase?: string;
}

export interface Generation {
  id: string;
  /** The decoded answer text (after the separator, if the method emits one). */
  answer: string;
  /** Everything the model emitted, for inspection. */
  text: string;
  /** Reasoning positions used: tokens before the separator, or latent vectors. */
  reasoningLength: number;
  reasoningKind: 'tokens' | 'latents' | 'none';
  /**
   * The reasoning was stopped by a cap rather than ending by itself: a latent chain that reached
   * its method's cap (CoLaR's maxLatents). Left out by methods whose latent count is fixed; a
   * written chain's cap is read from its text (no separator, no `<eos>`) by the evaluation.
   */
  reasoningCapped?: boolean;
}

/** Latent vectors a method produced, for @telepath/analysis: one matrix per slot. */
export interface LatentTrace {
  /** e.g. "latent" or "coprocessor" */
  source: string;
  /** slots × [N, C]: slot s holds the vectors produced at latent position s over N examples. */
  slots: { name: string; vectors: Float32Array; rows: number; width: number }[];
  exampleIds: string[];
}

export interface MethodState {
  /** Variables trained in the current phase. */
  trainable(phase: string): Map<string, tf.Variable>;
  /** Every variable to checkpoint. */
  variables(): Map<string, tf.Variable>;
  dispose(): void;
}

export interface LatentMethod<C, S extends MethodState = MethodState> {
  readonly id: MethodId;
  readonly paper: { title: string; arxiv: string | null; sections: string[] };
  readonly defaults: C;
  /** Creates the method's variables (and takes ownership of ctx.lm). */
  init(ctx: MethodContext, config: C): S;
  /**
   * Training phases in order, each with its number of steps taken from the config, and optional
   * optimizer settings that replace the experiment's for that phase (e.g. an RL learning rate).
   */
  phases(config: C): { phase: string; steps: number; optim?: Partial<OptimConfig> }[];
  /** Loss on a batch; called inside tf.tidy by the training loop. */
  loss(state: S, batch: Example[], at: StepInfo): tf.Scalar;
  /**
   * Work a step needs before its loss that reads tensors back (CoLaR's GRPO rollouts and rewards):
   * awaited outside the gradient tape with the batch and StepInfo the loss then gets (core's
   * `TrainOptions.prepare`); the loss consumes what it left in the state. Its reads are
   * asynchronous: a synchronous read fails on webgpu.
   */
  prepare?(state: S, batch: Example[], at: StepInfo): Promise<void>;
  generate(state: S, batch: Example[], o: GenerateOptions): Promise<Generation[]>;
  /**
   * How many times evaluation decodes every question (default 1). Methods that decode
   * stochastically report the mean and spread over these passes (e.g. CoLaR: 5).
   */
  evalPasses?(config: C): number;
  /**
   * Controls that cannot change this config's latents, each with the reason (soft tokens are the
   * same vectors for every question, so shuffling them across questions changes nothing). The lab
   * does not evaluate them and says so in the table, instead of a control row that cannot fail.
   */
  vacuousControls?(config: C): Partial<Record<LatentControl, string>>;
  /** Counts from training worth recording with the result (e.g. CoLaR's GRPO groups with a non-zero advantage). */
  trainingStats?(state: S): Record<string, number>;
  /** Latent vectors for the analysis; asynchronous, as it decodes (reads batched, none synchronous). */
  trace?(state: S, batch: Example[]): Promise<LatentTrace>;
}
