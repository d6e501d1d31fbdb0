/**
 * Helpers for the packages' training-step benches (`packages/<pkg>/bench/*.bench.ts`): examples of
 * ProsQA-like length from one-token words, and the median time of an asynchronous step.
 * Exported from the package root (a bench is not a test, so not from '@telepath/core/testing',
 * which loads vitest).
 */
import type { Example } from './method.js';
import { Rng } from './rng.js';

/**
 * `count` examples whose questions are `promptWords` [min, max) words long and whose chains have
 * `steps` lines of 4–15 words, from 60 words that are one token each ("wab", …).
 */
export function benchExamples(count: number, promptWords: [number, number], steps: number, seed = 1): Example[] {
  const rng = new Rng(seed);
  const LETTERS = 'abcdefghij';
  const word = () => `w${LETTERS[rng.int(10)]}${LETTERS[rng.int(6)]}`;
  const words = (n: number) => Array.from({ length: n }, word).join(' ');
  return Array.from({ length: count }, (_, i) => ({
    id: `bench${i}`,
    question: words(promptWords[0] + rng.int(promptWords[1] - promptWords[0])),
    steps: Array.from({ length: steps }, () => words(4 + rng.int(12))),
    answer: word(),
  }));
}

/** Median ms of `step` over `steps` timed calls after 2 untimed warm-up calls. */
export async function medianStepMs(step: () => Promise<void>, steps: number): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < steps + 2; i++) {
    const t0 = performance.now();
    await step();
    times.push(performance.now() - t0);
  }
  const timed = times.slice(2).sort((a, b) => a - b);
  return Math.round(timed[Math.floor(timed.length / 2)]);
}
