/**
 * Evaluation of a trained arm: generate answers batch by batch, score them with the task, time the
 * decoding per example, and report accuracy with its binomial standard error.
 */
import { Rng, type Example, type Generation, type LatentControl, type LatentMethod, type MethodState } from '@telepath/core';
import type { Task } from '@telepath/tasks';
import { Progress } from './progress.js';
import type { EvalSettings } from './experiment.js';

export interface ScoredSample {
  id: string;
  question: string;
  gold: string;
  prediction: string;
  correct: boolean;
  reasoningLength: number;
  text: string;
  /** The task's verdict on written reasoning (token reasoning and tasks with `checkReasoning` only). */
  reasoning?: { ok: boolean; reason: string };
}

export interface EvalResult {
  accuracy: number;
  /** Binomial standard error sqrt(p(1 − p) / n). */
  stderr: number;
  correct: number;
  total: number;
  reasoningLength: number;
  reasoningKind: Generation['reasoningKind'];
  msPerExample: number;
  /** Share of samples whose written reasoning the task judges sound; null when not checked. */
  validReasoning: number | null;
  /** How often each verdict occurred (e.g. {"ok": 12, "wrong-arithmetic": 180}); {} when not checked. */
  reasoningVerdicts: Record<string, number>;
  samples: ScoredSample[];
}

/** The task's verdict on the text before `###`, for methods that write their reasoning as tokens. */
function checkReasoning(task: Task, ex: Example, g: Generation): ScoredSample['reasoning'] {
  if (!task.checkReasoning || g.reasoningKind !== 'tokens') return undefined;
  const { ok, reason } = task.checkReasoning(ex, g.text.split('###')[0]);
  return { ok, reason };
}

export async function evaluate<C, S extends MethodState>(
  method: LatentMethod<C, S>,
  state: S,
  examples: Example[],
  task: Task,
  settings: EvalSettings & { maxNewTokens: number },
  o: { label?: string; seed?: number; shouldStop?: () => boolean; quiet?: boolean; control?: LatentControl; /** Decoding pass k > 0 of a repeated evaluation draws from its own stream (eval-passes.ts). */ pass?: number } = {},
): Promise<EvalResult | 'interrupted'> {
  const progress = o.quiet ? undefined : new Progress(o.label ?? 'eval', examples.length);
  const rng = new Rng(o.seed ?? 0).fork(o.pass ? `eval/pass${o.pass}` : 'eval');
  const samples: ScoredSample[] = [];
  let decodeMs = 0;
  let reasoningKind: Generation['reasoningKind'] = 'none';
  for (let i = 0; i < examples.length; i += settings.batchSize) {
    if (o.shouldStop?.()) return 'interrupted';
    const batch = examples.slice(i, i + settings.batchSize);
    const t0 = performance.now();
    const gens = await method.generate(state, batch, { maxNewTokens: settings.maxNewTokens, temperature: settings.temperature, topP: settings.topP, rng: rng.fork(`batch/${i}`), control: o.control ?? 'none' });
    decodeMs += performance.now() - t0;
    gens.forEach((g, j) => {
      const ex = batch[j];
      if (g.id !== ex.id) throw new Error(`${method.id}.generate returned answers out of order (${g.id} for ${ex.id})`);
      reasoningKind = g.reasoningKind;
      const reasoning = checkReasoning(task, ex, g);
      samples.push({ id: ex.id, question: ex.question, gold: ex.answer, prediction: g.answer, correct: task.isCorrect(ex, `### ${g.answer}`), reasoningLength: g.reasoningLength, text: g.text, ...(reasoning ? { reasoning } : {}) });
    });
    const correct = samples.filter((s) => s.correct).length;
    progress?.update(samples.length, `acc ${((100 * correct) / samples.length).toFixed(1)}%`);
  }
  const total = samples.length;
  const correct = samples.filter((s) => s.correct).length;
  const p = total ? correct / total : 0;
  const checked = samples.filter((s) => s.reasoning);
  const reasoningVerdicts: Record<string, number> = {};
  for (const s of checked) reasoningVerdicts[s.reasoning!.reason] = (reasoningVerdicts[s.reasoning!.reason] ?? 0) + 1;
  return {
    accuracy: p,
    stderr: total ? Math.sqrt((p * (1 - p)) / total) : 0,
    correct,
    total,
    reasoningLength: total ? samples.reduce((a, s) => a + s.reasoningLength, 0) / total : 0,
    reasoningKind,
    msPerExample: total ? decodeMs / total : 0,
    validReasoning: checked.length ? checked.filter((s) => s.reasoning!.ok).length / checked.length : null,
    reasoningVerdicts,
    samples,
  };
}
