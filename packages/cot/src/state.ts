/** The references' state: the LM (owned, every parameter trained), the tokenizer and the resolved config. */
import { parseConfig, type MethodContext, type MethodState, type TinyLm, type Tokenizer } from '@telepath/core';
import { COT_VARIANTS, DEFAULT_COT_CONFIG, type CotConfig } from './config.js';

export interface CotState extends MethodState {
  lm: TinyLm;
  tokenizer: Tokenizer;
  config: CotConfig;
}

export function initState(ctx: MethodContext, config: CotConfig): CotState {
  const c = parseConfig(DEFAULT_COT_CONFIG, config, 'cot');
  if (!COT_VARIANTS.includes(c.variant))
    throw new Error(`cot: unknown variant "${c.variant}". Expected one of: ${COT_VARIANTS.join(', ')}`);
  if (!Number.isInteger(c.lengthBuckets) || c.lengthBuckets < 1)
    throw new Error(
      `cot: lengthBuckets must be an integer ≥ 1 (1: one padded batch), got ${JSON.stringify(c.lengthBuckets)}`,
    );
  if (!(Number.isFinite(c.promptLossWeight) && c.promptLossWeight >= 0))
    throw new Error(
      `cot: promptLossWeight must be a finite number ≥ 0 (0: the question is context only), got ${JSON.stringify(c.promptLossWeight)}`,
    );
  return {
    lm: ctx.lm,
    tokenizer: ctx.tokenizer,
    config: c,
    trainable: () => ctx.lm.params,
    variables: () => ctx.lm.params,
    dispose: () => ctx.lm.dispose(),
  };
}
