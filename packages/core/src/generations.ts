/**
 * The step every method's `generate` ends with: answer tokens decoded after a prefix become
 * `Generation`s. `decodeGenerations` is the whole tail of a latent method (the prefix's cache and
 * last logits → core's `decode` → `Generation`s); `toGenerations` is its last part, for methods
 * that decode another way (the references' `generate`).
 * Letters: B batch, V vocab.
 */
import type * as tf from '@tensorflow/tfjs-core';
import { decode, type DecodeResult } from './generate.js';
import type { KvCache } from './kv-cache.js';
import type { Example, Generation } from './method.js';
import { answerFromIds } from './sequence.js';
import type { Rng } from './rng.js';
import type { TinyLm } from './tiny-lm.js';
import type { Tokenizer } from './tokenizer.js';

/** What a row's reasoning cost, from its index and the tokens it wrote before `###`. */
export type ReasoningOf = (
  row: number,
  reasoningTokens: number,
) => Pick<Generation, 'reasoningLength' | 'reasoningKind'>;

/**
 * One `Generation` per example from the tokens decoded for it; `forced` ids (e.g. `###` fed
 * before decoding) are put in front of every row before its answer and text are read.
 */
export function toGenerations(
  tok: Tokenizer,
  batch: Example[],
  tokens: number[][],
  forced: number[],
  reasoning: ReasoningOf,
): Generation[] {
  return batch.map((ex, i) => {
    const ids = [...forced, ...tokens[i]];
    const a = answerFromIds(tok, ids);
    return { id: ex.id, answer: a.answer, text: tok.decode(ids), ...reasoning(i, a.reasoningTokens) };
  });
}

/** A prefix the LM has run: its cache, the logits at its last column [B, V] and each row's next position id. */
export interface DecodeStart {
  cache: KvCache;
  lastLogits: tf.Tensor2D;
  positions: number[];
}

export interface DecodeGenerationsOptions {
  /** Longest answer asked for; cut to the context left after the longest prefix, at least 1. */
  maxNewTokens: number;
  temperature: number;
  topP: number;
  rng: Rng;
  /** Ids the prefix already fed after the reasoning (e.g. `###`), read as part of every answer. */
  forced: number[];
  /** Latent positions every row used (its `reasoningLength`, kind 'latents'). */
  latents: number;
}

/**
 * Decodes answers after `start` until `<eos>` and makes them `Generation`s. `decode` takes the
 * cache (it disposes it); the last logits are disposed here, also when decoding throws.
 */
export async function decodeGenerations(
  lm: TinyLm,
  tok: Tokenizer,
  batch: Example[],
  start: DecodeStart,
  o: DecodeGenerationsOptions,
): Promise<Generation[]> {
  const room = lm.config.contextLength - Math.max(...start.positions);
  const maxNewTokens = Math.max(1, Math.min(o.maxNewTokens, room));
  let out: DecodeResult;
  try {
    out = await decode(lm, start.cache, start.lastLogits, start.positions, {
      maxNewTokens,
      padId: tok.padId,
      stopTokens: [tok.eosId],
      temperature: o.temperature,
      topP: o.topP,
      rng: o.rng,
    });
  } finally {
    start.lastLogits.dispose();
  }
  return toGenerations(tok, batch, out.tokens, o.forced, () => ({
    reasoningLength: o.latents,
    reasoningKind: 'latents',
  }));
}
