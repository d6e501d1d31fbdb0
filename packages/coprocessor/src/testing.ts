/**
 * Test fixtures of the coprocessor package: a toy task and a tiny Base. Tests only.
 */
import { exampleTexts, Rng, TinyLm, Tokenizer, type Example } from '@telepath/core';

/** The toy addition task shared by every method's tests (core/testing). */
export { toyAdditionExamples as toyExamples } from '@telepath/core/testing';

/** A tiny Base over the toy task's vocabulary, with room for 16 latents. */
export function toyBase(
  data: Example[],
  seed = 0,
  layers = 2,
  positions: 'learned' | 'rotary' = 'learned',
): { lm: TinyLm; tokenizer: Tokenizer } {
  const tokenizer = Tokenizer.build(exampleTexts(data));
  const lm = new TinyLm(
    {
      vocabSize: tokenizer.size,
      contextLength: 40,
      layers,
      heads: 2,
      width: 16,
      mlpRatio: 2,
      dropout: 0,
      layerNormEps: 1e-5,
      initStd: 0.1,
      positions,
    },
    new Rng(seed),
  );
  return { lm, tokenizer };
}
