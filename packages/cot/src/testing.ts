/** Test fixtures: a tiny LM (2 layers × 32) with a tokenizer built from the examples. */
import { exampleTexts, Rng, TinyLm, Tokenizer, type Example } from '@telepath/core';

export function tinyLmFor(data: Example[], contextLength: number, seed = 0): { lm: TinyLm; tokenizer: Tokenizer } {
  const tokenizer = Tokenizer.build(exampleTexts(data));
  const lm = new TinyLm(
    {
      vocabSize: tokenizer.size,
      contextLength,
      layers: 2,
      heads: 2,
      width: 32,
      mlpRatio: 4,
      dropout: 0,
      layerNormEps: 1e-5,
      initStd: 0.02,
    },
    new Rng(seed),
  );
  return { lm, tokenizer };
}
