/**
 * Test fixtures of the coprocessor package: a toy task and a tiny Base. Tests only.
 */
import { exampleTexts, Rng, TinyLm, Tokenizer, type Example } from '@telepath/core';

/** Toy task: "add a b" with the sum as answer and one step "a+b=s". */
export function toyExamples(n: number, seed = 1): Example[] {
  const rng = new Rng(seed);
  return Array.from({ length: n }, (_, i) => {
    const a = rng.int(5);
    const b = rng.int(5);
    return { id: `t${i}`, question: `add ${a} ${b}`, steps: [`${a}+${b}=${a + b}`], answer: String(a + b) };
  });
}

/** A tiny Base over the toy task's vocabulary, with room for 16 latents. */
export function toyBase(data: Example[], seed = 0, layers = 2): { lm: TinyLm; tokenizer: Tokenizer } {
  const tokenizer = Tokenizer.build(exampleTexts(data));
  const lm = new TinyLm({ vocabSize: tokenizer.size, contextLength: 40, layers, heads: 2, width: 16, mlpRatio: 2, dropout: 0, layerNormEps: 1e-5, initStd: 0.1 }, new Rng(seed));
  return { lm, tokenizer };
}
