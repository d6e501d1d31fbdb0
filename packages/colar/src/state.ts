/**
 * The state CoLaR trains and decodes with: the LM (initialised from the CoT model by the lab),
 * the latent head, the fixed embedding scale, the task's reward and the GRPO rollout buffer.
 */
import type * as tf from '@tensorflow/tfjs-core';
import type { MethodState, RewardFn, TinyLm, Tokenizer } from '@telepath/core';
import type { ColarConfig } from './config.js';
import type { BufferedRollout } from './grpo.js';
import type { LatentHead } from './latent-head.js';
import type { PendingSelfFeed } from './self-feed.js';

export interface ColarState extends MethodState {
  lm: TinyLm;
  tokenizer: Tokenizer;
  config: ColarConfig;
  head: LatentHead;
  /**
   * Std of the LM's embedding table when the method was initialised (from the arm it starts from):
   * targets are divided by it, latents multiplied. The checkpointed variable itself (`colar.embStd`,
   * in `variables()`, never trained), so a restored arm uses the value it trained with; used as a
   * tensor, never read back.
   */
  readonly embStd: tf.Scalar;
  /** The learnt speed vectors [speeds, C], row c − 1 for speed c (config.speedVector; absent otherwise). */
  speedTable?: tf.Variable;
  /** 1 for a correct answer, 0 otherwise (from the lab); required by the 'rl' phase. */
  reward?: RewardFn;
  /** Rollouts waiting to be trained on (GRPO: old log-probs fixed at rollout time). */
  buffer: BufferedRollout[];
  /**
   * Rollouts and GRPO groups so far in this process (groupsWithSignal: groups whose rewards differ,
   * the only ones with non-zero advantages), and the last buffer's mean reward and latents.
   */
  rlStats: { rollouts: number; groups: number; groupsWithSignal: number };
  /** Self-fed SFT inputs prepared for the next loss (selfFeedShare > 0), consumed by it. */
  pendingSelfFeed?: PendingSelfFeed;
  params(): Map<string, tf.Variable>;
}
