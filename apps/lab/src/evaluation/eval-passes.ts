/**
 * Repeated evaluation for methods that decode stochastically (`LatentMethod.evalPasses`, e.g.
 * CoLaR: "5 runs, mean ± 95 % CI", arXiv 2505.16552 Table 1): every pass decodes every question
 * with its own random stream; the result's accuracy is the mean over passes, its samples are the
 * first pass's with each question's share of passes right (`passScore`, what the paired intervals read), and `passes` records each pass's accuracy, their sd and 1.96·sd/√n. With `parts`,
 * each finished pass is kept (key `pass<k>`), so an interrupted evaluation resumes after it.
 */
import type { Example, LatentControl, LatentMethod, MethodState } from '@telepath/core';
import type { Task } from '@telepath/tasks';
import { evaluate, type EvalResult } from './evaluate.js';
import { keepAs, type FinishedParts } from './finished-parts.js';
import type { EvalSettings } from '../experiment/experiment.js';

export interface PassStats {
  n: number;
  accuracies: number[];
  mean: number;
  /** Sample standard deviation over passes (0 for one pass). */
  sd: number;
  /** Half-width of the 95 % interval of the mean, 1.96 · sd / √n (CoLaR's ±). */
  ci95: number;
}

export type PassedEvalResult = EvalResult & { passes?: PassStats };

type Options = NonNullable<Parameters<typeof evaluate>[5]> & { control?: LatentControl; parts?: FinishedParts };

export function passStats(accuracies: number[]): PassStats {
  const n = accuracies.length;
  const mean = accuracies.reduce((a, b) => a + b, 0) / n;
  const sd = n > 1 ? Math.sqrt(accuracies.reduce((a, b) => a + (b - mean) ** 2, 0) / (n - 1)) : 0;
  return { n, accuracies, mean, sd, ci95: (1.96 * sd) / Math.sqrt(n) };
}

/** `evaluate`, `passes` times when the method asks for more than one (controls: always once). */
export async function evaluatePasses<C, S extends MethodState>(
  method: LatentMethod<C, S>,
  config: C,
  state: S,
  examples: Example[],
  task: Task,
  settings: EvalSettings & { maxNewTokens: number },
  o: Options = {},
): Promise<PassedEvalResult | 'interrupted'> {
  const first = await evaluate(method, state, examples, task, settings, {
    ...o,
    ...keepAs(o.parts, 'pass1'),
  });
  if (first === 'interrupted') return first;
  return addPasses(method, config, state, examples, task, settings, o, first);
}

/** Each question's share of the passes that answered it right: question id → [0, 1]. */
export function passScores(passes: Pick<EvalResult, 'samples'>[]): Map<string, number> {
  const right = new Map<string, number>();
  for (const r of passes) for (const s of r.samples) right.set(s.id, (right.get(s.id) ?? 0) + (s.correct ? 1 : 0));
  return new Map([...right].map(([id, n]) => [id, n / passes.length]));
}

/** The passes after `first` (an evaluation of the same examples with the same settings), when the method asks for more than one. */
export async function addPasses<C, S extends MethodState>(
  method: LatentMethod<C, S>,
  config: C,
  state: S,
  examples: Example[],
  task: Task,
  settings: EvalSettings & { maxNewTokens: number },
  o: Options,
  first: EvalResult,
): Promise<PassedEvalResult | 'interrupted'> {
  const passes = o.control && o.control !== 'none' ? 1 : (method.evalPasses?.(config) ?? 1);
  if (!Number.isInteger(passes) || passes < 1)
    throw new Error(`${method.id}.evalPasses must be an integer ≥ 1, got ${passes}`);
  if (passes === 1) return first;
  const results: EvalResult[] = [first];
  for (let k = 1; k < passes; k++) {
    const r = await evaluate(method, state, examples, task, settings, {
      ...o,
      pass: k,
      label: `${o.label ?? 'eval'} (pass ${k + 1}/${passes})`,
      ...keepAs(o.parts, `pass${k + 1}`),
    });
    if (r === 'interrupted') return r;
    results.push(r);
  }
  const stats = passStats(results.map((r) => r.accuracy));
  const correct = results.reduce((a, r) => a + r.correct, 0);
  const total = results.reduce((a, r) => a + r.total, 0);
  const mean = (key: 'reasoningLength' | 'msPerExample') => results.reduce((a, r) => a + r[key], 0) / passes;
  const scores = passScores(results);
  return {
    ...first,
    samples: first.samples.map((s) => ({ ...s, passScore: scores.get(s.id)! })),
    accuracy: stats.mean,
    // Binomial error over the questions (not over passes × questions: passes share the questions).
    stderr: Math.sqrt((stats.mean * (1 - stats.mean)) / first.total),
    correct: correct / passes, // mean over passes (may be fractional)
    total: total / passes,
    reasoningLength: mean('reasoningLength'),
    msPerExample: mean('msPerExample'),
    passes: stats,
  };
}
