/**
 * No-CoT (question → ### → answer) and explicit CoT (question → steps → ### → answer) on the
 * core LM, implementing core's method contract. Reasoning length = tokens generated before ###.
 */
import * as tf from '@tensorflow/tfjs-core';
import {
  answerFromIds,
  encodeExample,
  generate,
  maskedCrossEntropy,
  packSegments,
  parseConfig,
  type Example,
  type GenerateOptions,
  type Generation,
  type LatentMethod,
  type MethodContext,
  type MethodState,
  type StepInfo,
  type TinyLm,
  type Tokenizer,
} from '@telepath/core';
import { COT_VARIANTS, DEFAULT_COT_CONFIG, type CotConfig } from './config.js';

export interface CotState extends MethodState {
  lm: TinyLm;
  tokenizer: Tokenizer;
  config: CotConfig;
}

function init(ctx: MethodContext, config: CotConfig): CotState {
  const c = parseConfig(DEFAULT_COT_CONFIG, config, 'cot');
  if (!COT_VARIANTS.includes(c.variant)) throw new Error(`cot: unknown variant "${c.variant}". Expected one of: ${COT_VARIANTS.join(', ')}`);
  return {
    lm: ctx.lm,
    tokenizer: ctx.tokenizer,
    config: c,
    trainable: () => ctx.lm.params,
    variables: () => ctx.lm.params,
    dispose: () => ctx.lm.dispose(),
  };
}

/** Token segments of one example: the prompt is context, the rest is trained. */
function segments(s: CotState, ex: Example): { ids: number[]; trained: boolean }[] {
  const e = encodeExample(s.tokenizer, ex);
  return s.config.variant === 'cot'
    ? [{ ids: e.prompt, trained: false }, { ids: e.reasoning, trained: true }, { ids: e.answer, trained: true }]
    : [{ ids: e.prompt, trained: false }, { ids: e.answer, trained: true }];
}

function loss(s: CotState, batch: Example[], _at: StepInfo): tf.Scalar {
  return tf.tidy(() => {
    const p = packSegments(batch.map((ex) => segments(s, ex)), s.tokenizer.padId, s.lm.config.contextLength);
    const out = s.lm.forward(s.lm.embed(p.ids)); // right padding: causal attention never sees it
    return maskedCrossEntropy(out.logits, p.targets, p.lossMask);
  });
}

async function generateAnswers(s: CotState, batch: Example[], o: GenerateOptions): Promise<Generation[]> {
  const tok = s.tokenizer;
  const forced = s.config.variant === 'no-cot' ? [tok.sepId] : [];
  const prompts = batch.map((ex) => [...encodeExample(tok, ex).prompt, ...forced]);
  const maxNewTokens = Math.min(o.maxNewTokens || s.config.maxNewTokens, s.lm.config.contextLength - Math.max(...prompts.map((p) => p.length)));
  const out = await generate(s.lm, prompts, { maxNewTokens, padId: tok.padId, stopTokens: [tok.eosId], temperature: o.temperature, topP: o.topP, rng: o.rng });
  return batch.map((ex, i) => {
    const ids = [...forced, ...out.tokens[i]];
    const a = answerFromIds(tok, ids);
    return {
      id: ex.id,
      answer: a.answer,
      text: tok.decode(ids),
      reasoningLength: s.config.variant === 'cot' ? a.reasoningTokens : 0,
      reasoningKind: s.config.variant === 'cot' ? 'tokens' : 'none',
    };
  });
}

export const cot: LatentMethod<CotConfig, CotState> = {
  id: 'cot',
  paper: { title: 'Supervised No-CoT and chain-of-thought references', arxiv: null, sections: [] },
  defaults: DEFAULT_COT_CONFIG,
  init,
  phases: (c) => [{ phase: 'sft', steps: parseConfig(DEFAULT_COT_CONFIG, c, 'cot').steps }],
  loss,
  generate: generateAnswers,
};
