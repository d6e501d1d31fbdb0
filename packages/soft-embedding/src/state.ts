/**
 * The method's state: the LM (owned), the tokenizer, the resolved config and, for soft tokens,
 * the N_L trainable embedding vectors. Letters: K latent slots (N_L), C width.
 */
import * as tf from '@tensorflow/tfjs-core';
import {
  uniqueVariableName,
  variableFrom,
  type MethodContext,
  type MethodState,
  type TinyLm,
  type Tokenizer,
} from '@telepath/core';
import { resolveConfig, type SoftEmbeddingConfig } from './config.js';

export const SOFT_TOKENS_PARAM = 'soft.tokens';

export interface SoftEmbeddingState extends MethodState {
  lm: TinyLm;
  tokenizer: Tokenizer;
  config: SoftEmbeddingConfig;
  /** soft-tokens only: [K, C] trainable input embeddings of the latent slots. */
  soft?: tf.Variable;
}

export function initState(ctx: MethodContext, raw: SoftEmbeddingConfig): SoftEmbeddingState {
  const config = resolveConfig(raw);
  for (const name of ['bot', 'eot', 'latent'] as const) ctx.tokenizer.id(name); // throws naming a missing special
  const { width: C, initStd } = ctx.lm.config;
  const K = config.latentTokens;
  // chosen: paper A does not say how its soft tokens start; drawn like token embeddings (N(0, initStd)).
  const soft =
    config.variant === 'soft-tokens'
      ? variableFrom(
          tf.tensor2d(ctx.rng.fork('soft-tokens').normalArray(K * C, initStd), [K, C]),
          true,
          uniqueVariableName('soft-embedding.soft.tokens'),
        )
      : undefined;
  const all = () => new Map([...ctx.lm.params, ...(soft ? [[SOFT_TOKENS_PARAM, soft] as const] : [])]);
  return {
    lm: ctx.lm,
    tokenizer: ctx.tokenizer,
    config,
    soft,
    trainable: (phase) => {
      if (config.variant === 'soft-tokens' && phase !== 'sft')
        throw new Error(`soft-embedding: soft-tokens has no phase "${phase}". Expected: sft`);
      return all();
    },
    variables: all,
    dispose: () => {
      soft?.dispose();
      ctx.lm.dispose();
    },
  };
}
