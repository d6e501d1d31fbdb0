/**
 * Evaluation of a trained arm (or a heuristic): generate answers batch by batch, score them with
 * the task, diagnose each written chain (`diagnoseChain` of @telepath/tasks), note generations cut
 * off by the token cap, time the decoding per example, and report accuracy with its binomial
 * standard error. Every sample keeps its question id and correctness (samples.jsonl), from which
 * reports rebuild paired intervals.
 */
import {
  Rng,
  SPECIAL_TOKENS,
  type Example,
  type Generation,
  type GenerateOptions,
  type LatentControl,
  type LatentMethod,
  type MethodState,
} from '@telepath/core';
import { diagnoseChain, reasoningText, type ChainDiagnosis, type Task } from '@telepath/tasks';
import { emptyDiagnostics, tallyDiagnosis, type Diagnostics } from './diagnostics.js';
import { Progress } from '../running/progress.js';
import type { FinishedParts } from './finished-parts.js';
import type { EvalSettings } from '../experiment/experiment.js';

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
  /** What the written chain says beside the answer (chain class, agreement, ProsQA's option). */
  diagnosis?: ChainDiagnosis;
  /** The generation ended without `<eos>`: cut off by the token cap or the context end. */
  hitCap?: boolean;
  /** The reasoning was cut by a cap (`reasoningCappedOf`): no answer of its own choosing followed it. */
  reasoningCapped?: boolean;
  /**
   * Arms decoded in several sampled passes (eval-passes.ts): the share of the passes that answered
   * this question right, what the paired intervals read; `correct` and the rest are the first pass's.
   */
  passScore?: number;
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
  diagnostics: Diagnostics;
  samples: ScoredSample[];
}

/** A generation, plus the written chain for answerers whose chain is not in `text` before `###` (heuristics). */
export type Answerer = (batch: Example[], o: GenerateOptions) => Promise<(Generation & { chain?: string | null })[]>;

export interface EvalOptions {
  label?: string;
  seed?: number;
  shouldStop?: () => boolean;
  quiet?: boolean;
  control?: LatentControl;
  /** Decoding pass k > 0 of a repeated evaluation draws from its own stream (eval-passes.ts). */
  pass?: number;
  /** Keep the result as part `key` of the arm's evaluation, and reuse it when it already finished (finished-parts.ts). */
  keep?: { parts: FinishedParts; key: string };
}

/**
 * Whether a generation's reasoning was stopped by a cap: a latent chain its method reports capped
 * (CoLaR at maxLatents), or a written chain that reached the token cap before the separator (no
 * `###`, no `<eos>`). A chain that ended with `<eos>` and no answer stopped by itself.
 */
export function reasoningCappedOf(g: Generation): boolean {
  if (g.reasoningKind === 'latents') return g.reasoningCapped ?? false;
  if (g.reasoningKind === 'none') return false;
  return writtenChainCapped(g.text);
}

/** A written chain's text that reached the token cap before its answer: no `###`, no `<eos>`. */
export function writtenChainCapped(text: string): boolean {
  return !text.includes(SPECIAL_TOKENS.sep) && !text.includes(SPECIAL_TOKENS.eos);
}

/** The written chain of a generation: the text before `###` of token reasoning; null for latent or no reasoning. */
function chainOf(g: Generation & { chain?: string | null }): string | null {
  if (g.chain !== undefined) return g.chain;
  return g.reasoningKind === 'tokens' ? reasoningText(g.text) : null;
}

export async function evaluate<C, S extends MethodState>(
  method: LatentMethod<C, S>,
  state: S,
  examples: Example[],
  task: Task,
  settings: EvalSettings & { maxNewTokens: number },
  o: EvalOptions = {},
): Promise<EvalResult | 'interrupted'> {
  return evaluateAnswers((batch, g) => method.generate(state, batch, g), examples, task, settings, o, method.id);
}

export async function evaluateAnswers(
  answer: Answerer,
  examples: Example[],
  task: Task,
  settings: Pick<EvalSettings, 'batchSize' | 'temperature' | 'topP'> & { maxNewTokens: number },
  o: EvalOptions = {},
  who = 'answerer',
): Promise<EvalResult | 'interrupted'> {
  const ids = examples.map((ex) => ex.id);
  const finished = await o.keep?.parts.read(o.keep.key, ids);
  if (finished) {
    if (!o.quiet) process.stderr.write(`${o.label ?? 'eval'}: finished before an interruption, reused\n`);
    return finished;
  }
  const result = await answerAll(answer, examples, task, settings, o, who);
  if (result !== 'interrupted') await o.keep?.parts.write(o.keep.key, ids, result);
  return result;
}

async function answerAll(
  answer: Answerer,
  examples: Example[],
  task: Task,
  settings: Pick<EvalSettings, 'batchSize' | 'temperature' | 'topP'> & { maxNewTokens: number },
  o: EvalOptions,
  who: string,
): Promise<EvalResult | 'interrupted'> {
  const progress = o.quiet ? undefined : new Progress(o.label ?? 'eval', examples.length);
  const rng = new Rng(o.seed ?? 0).fork(o.pass ? `eval/pass${o.pass}` : 'eval');
  const samples: ScoredSample[] = [];
  let decodeMs = 0;
  let reasoningKind: Generation['reasoningKind'] = 'none';
  for (let i = 0; i < examples.length; i += settings.batchSize) {
    if (o.shouldStop?.()) return 'interrupted';
    await new Promise<void>((resolve) => setImmediate(resolve)); // timers run between batches: a queue worker renews its job's lock
    const batch = examples.slice(i, i + settings.batchSize);
    const t0 = performance.now();
    const gens = await answer(batch, {
      maxNewTokens: settings.maxNewTokens,
      temperature: settings.temperature,
      topP: settings.topP,
      rng: rng.fork(`batch/${i}`),
      control: o.control ?? 'none',
    });
    decodeMs += performance.now() - t0;
    gens.forEach((g, j) => {
      const ex = batch[j];
      if (g.id !== ex.id) throw new Error(`${who}.generate returned answers out of order (${g.id} for ${ex.id})`);
      reasoningKind = g.reasoningKind;
      const chain = chainOf(g);
      const checked = chain !== null && task.checkReasoning ? task.checkReasoning(ex, chain) : undefined;
      const output = `### ${g.answer}`;
      samples.push({
        id: ex.id,
        question: ex.question,
        gold: ex.answer,
        prediction: g.answer,
        correct: task.isCorrect(ex, output),
        reasoningLength: g.reasoningLength,
        text: g.text,
        ...(checked ? { reasoning: { ok: checked.ok, reason: checked.reason } } : {}),
        diagnosis: diagnoseChain(task, ex, chain, output),
        hitCap: !g.text.includes(SPECIAL_TOKENS.eos),
        reasoningCapped: reasoningCappedOf(g),
      });
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
  const diagnostics = emptyDiagnostics();
  for (const s of samples) tallyDiagnosis(diagnostics, s.diagnosis!, s.hitCap!, s.reasoningCapped!);
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
    diagnostics,
    samples,
  };
}
