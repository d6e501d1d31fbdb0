/** The work behind the `heuristics` command: each heuristic's accuracy on a set of examples. */
import { Rng } from '@telepath/core';
import type { Example, Task } from '../example.js';
import { taskHeuristics } from '../heuristics.js';

export interface HeuristicScore {
  heuristic: string;
  correct: number;
  total: number;
  accuracy: number;
}

/** Scores every heuristic of `task` on `examples`; `chance` draws from `Rng(seed)`, one fork per example. */
export function scoreHeuristics(task: Task, examples: Example[], seed = 0): HeuristicScore[] {
  return Object.values(taskHeuristics(task.name)).map((h) => {
    const rng = new Rng(seed).fork(h.name);
    const correct = examples.filter((ex, i) =>
      task.isCorrect(ex, `### ${h.answer(ex, rng.fork(String(i))).answer}`),
    ).length;
    return {
      heuristic: h.name,
      correct,
      total: examples.length,
      accuracy: examples.length ? correct / examples.length : 0,
    };
  });
}
