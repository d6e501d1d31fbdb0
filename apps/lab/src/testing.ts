import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Example, LatentMethod, MethodState } from '@telepath/core';
import type { Task } from '@telepath/tasks';
/**
 * The micro experiment settings the lab's end-to-end tests share: Countdown-3, a 1-layer width-16
 * LM and a few steps on the cpu backend, so a whole `telepath run` takes about a second.
 */
export const MICRO_SETTINGS = {
  task: 'countdown',
  data: { n: 3, trainCount: 40, testCount: 6, seed: 0 },
  seeds: [0],
  lm: { layers: 1, heads: 2, width: 16 },
  train: { batchSize: 4, logEvery: 1, checkpointEvery: 2, optim: { lr: 0.003, warmupSteps: 1 } },
  eval: { batchSize: 3, maxNewTokens: 24, controls: [] as string[], curveEvery: 2, curveExamples: 4 },
};

/** The metrics.jsonl of run directory `...dir` (joined), one object per line. */
export function metricLines(...dir: string[]): Record<string, number>[] {
  return readFileSync(join(...dir, 'metrics.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, number>);
}

/**
 * A stand-in latent method for evaluation tests: it trains nothing and answers each question
 * right with probability one half, from the rng evaluation hands it; `evalPasses` decoding passes;
 * `onBatch` is told of every batch it answers.
 */
export function coinMethod(onBatch: () => void = () => {}): LatentMethod<{ passes: number }, MethodState> {
  return {
    id: 'colar',
    paper: { title: 'test', arxiv: null, sections: [] },
    defaults: { passes: 1 },
    init: () => ({ trainable: () => new Map(), variables: () => new Map(), dispose: () => {} }),
    phases: () => [],
    loss: () => {
      throw new Error('not trained');
    },
    generate: async (_s, batch, o) => {
      onBatch();
      return batch.map((ex) => ({
        id: ex.id,
        answer: o.rng.float() < 0.5 ? ex.answer : 'wrong',
        text: '',
        reasoningLength: 1,
        reasoningKind: 'latents' as const,
      }));
    },
    evalPasses: (c) => c.passes,
  };
}

/** What `coinMethod` is scored with: the answer after `### ` must be the example's. */
export const exactTask = { isCorrect: (ex: Example, text: string) => text === `### ${ex.answer}` } as unknown as Task;

/** `n` questions q0…q(n−1) whose answers are their indices. */
export const numberedQuestions = (n: number): Example[] =>
  Array.from({ length: n }, (_, i) => ({ id: `q${i}`, question: `q${i}`, steps: [], answer: String(i) }));
