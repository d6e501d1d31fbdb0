/**
 * Decoding of the references: core's `generate` after the prompt (No-CoT: after the prompt and a
 * forced `###`) until `<eos>`. Reasoning length = tokens written before `###` (CoT), 0 (No-CoT).
 */
import {
  encodeExample,
  generate,
  toGenerations,
  type Example,
  type GenerateOptions,
  type Generation,
} from '@telepath/core';
import type { CotState } from './state.js';

export async function generateAnswers(s: CotState, batch: Example[], o: GenerateOptions): Promise<Generation[]> {
  const tok = s.tokenizer;
  const forced = s.config.variant === 'no-cot' ? [tok.sepId] : [];
  const prompts = batch.map((ex) => [...encodeExample(tok, ex).prompt, ...forced]);
  const maxNewTokens = Math.min(
    o.maxNewTokens || s.config.maxNewTokens,
    s.lm.config.contextLength - Math.max(...prompts.map((p) => p.length)),
  );
  const out = await generate(s.lm, prompts, {
    maxNewTokens,
    padId: tok.padId,
    stopTokens: [tok.eosId],
    temperature: o.temperature,
    topP: o.topP,
    rng: o.rng,
  });
  return toGenerations(tok, batch, out.tokens, forced, (_, reasoningTokens) =>
    s.config.variant === 'cot'
      ? { reasoningLength: reasoningTokens, reasoningKind: 'tokens' }
      : { reasoningLength: 0, reasoningKind: 'none' },
  );
}
