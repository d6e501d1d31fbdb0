/**
 * Fixtures for tests of this package and of the lab: a two-step toy task and a tiny LM with the
 * method initialised on it. Import from '@telepath/soft-embedding/testing' in tests only.
 */
import { exampleTexts, Rng, TinyLm, Tokenizer, type Example } from '@telepath/core';
import { DEFAULT_SOFT_EMBEDDING_CONFIG, type SoftEmbeddingConfig } from './config.js';
import { softEmbedding } from './method.js';
import type { SoftEmbeddingState } from './state.js';

/** "sum a b c" with two steps "a+b=x", "x+c=y" and the answer y. */
export function toyExamples(n: number, seed = 1): Example[] {
  const rng = new Rng(seed);
  return Array.from({ length: n }, (_, i) => {
    const [a, b, c] = [rng.int(4), rng.int(4), rng.int(4)];
    return {
      id: `toy${i}`,
      question: `sum ${a} ${b} ${c}`,
      steps: [`${a}+${b}=${a + b}`, `${a + b}+${c}=${a + b + c}`],
      answer: String(a + b + c),
    };
  });
}

/** A 2-layer, width-16 LM on the toy vocabulary and the method's state on it. */
export function toyState(
  config: Partial<SoftEmbeddingConfig> = {},
  seed = 0,
  data = toyExamples(64),
): { data: Example[]; state: SoftEmbeddingState } {
  const tokenizer = Tokenizer.build(exampleTexts(data));
  const lm = new TinyLm(
    {
      vocabSize: tokenizer.size,
      contextLength: 48,
      layers: 2,
      heads: 2,
      width: 16,
      mlpRatio: 4,
      dropout: 0,
      layerNormEps: 1e-5,
      initStd: 0.1,
    },
    new Rng(seed),
  );
  const state = softEmbedding.init(
    { lm, tokenizer, rng: new Rng(seed), backend: 'cpu' },
    { ...DEFAULT_SOFT_EMBEDDING_CONFIG, ...config },
  );
  return { data, state };
}
