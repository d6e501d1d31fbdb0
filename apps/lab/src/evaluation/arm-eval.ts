/**
 * Evaluation of a finished arm on every test set of its data, and its training curve: shared by
 * trained arms (run-arm.ts) and heuristic arms (heuristic-arm.ts).
 * - The main test set's samples go to samples.jsonl; each further test set (Countdown's other
 *   split) to samples.<name>.jsonl and the summary's `tests.<name>`. Every sample keeps its
 *   question id and correctness, from which reports rebuild the paired intervals. With `parts`,
 *   each finished test set is kept and an interrupted evaluation resumes after it.
 * - The curve: accuracy on the first `eval.curveExamples` validation questions at the first log at
 *   or after every `eval.curveEvery` steps of a phase, and at its last step, logged as
 *   `<phase>/val_acc` in metrics.jsonl beside the loss; a resumed phase draws the same points.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { writeFileAtomic, type RunRecord } from '@telepath/core';
import type { TaskData } from '../experiment/data.js';
import type { Diagnostics } from './diagnostics.js';
import { keepAs, type FinishedParts } from './finished-parts.js';
import { evaluateAnswers, type Answerer, type EvalResult, type ScoredSample } from './evaluate.js';
import type { ExperimentConfig } from '../experiment/experiment.js';

export interface TestSetResult {
  accuracy: number;
  stderr: number;
  correct: number;
  total: number;
  diagnostics: Diagnostics;
}

type Settings = ExperimentConfig['eval'] & { maxNewTokens: number };

/** The first `max` examples (`eval.maxExamples`), or all of them when `max` is 0. */
export const capped = <T>(xs: T[], max: number) => (max > 0 ? xs.slice(0, max) : xs);

/** The samples file of test set `name` ('' = the main one). */
export function samplesFile(name = ''): string {
  return name ? `samples.${name}.jsonl` : 'samples.jsonl';
}

/** Each question's score under a latent control ({ id, correct } lines), for the paired intervals of its row. */
export const controlSamplesFile = (control: string) => `samples.control-${control}.jsonl`;

/** A test set's samples file of a run dir (`samplesFile(name)`; the main one by default), written atomically. */
export async function writeSamples(dir: string, samples: ScoredSample[], name = ''): Promise<void> {
  await writeFileAtomic(path.join(dir, samplesFile(name)), samples.map((s) => JSON.stringify(s)).join('\n') + '\n');
}

/** What the summary keeps of a further test set's evaluation (`tests.<name>`). */
export function testSetResult(r: EvalResult): TestSetResult {
  return { accuracy: r.accuracy, stderr: r.stderr, correct: r.correct, total: r.total, diagnostics: r.diagnostics };
}

export async function evaluateTestSets(
  answer: Answerer,
  data: TaskData,
  settings: Settings,
  dir: string,
  o: { label: string; seed: number; shouldStop?: () => boolean; quiet?: boolean; parts?: FinishedParts },
): Promise<{ main: EvalResult; tests: Record<string, TestSetResult>; test: TaskData['test'] } | 'interrupted'> {
  const test = capped(data.test, settings.maxExamples);
  const main = await evaluateAnswers(answer, test, data.task, settings, {
    ...o,
    label: `${o.label} eval`,
    ...keepAs(o.parts, 'main'),
  });
  if (main === 'interrupted') return main;
  await writeSamples(dir, main.samples);
  const tests: Record<string, TestSetResult> = {};
  for (const [name, examples] of Object.entries(data.extraTests ?? {})) {
    const r = await evaluateAnswers(answer, capped(examples, settings.maxExamples), data.task, settings, {
      ...o,
      label: `${o.label} eval [${name}]`,
      ...keepAs(o.parts, `test-${name}`),
    });
    if (r === 'interrupted') return r;
    await writeSamples(dir, r.samples, name);
    tests[name] = testSetResult(r);
  }
  return { main, tests, test };
}

/**
 * An `onLog` for core's train() that also logs the curve's validation accuracy; `answer` generates
 * with the arm's current weights (training resumes after it returns), decoding as in `phase`.
 */
export function curveLogger(
  answer: Answerer,
  data: TaskData,
  settings: Settings,
  record: RunRecord,
  phase: string,
  steps: number,
  seed: number,
) {
  const every = settings.curveEvery;
  const slice = data.validation.slice(0, settings.curveExamples);
  let last = -1;
  const curve = {
    /** Seconds spent on the curve (not training time). */
    seconds: 0,
    /** Training resumes after `step` (a checkpoint): its points up to there are on the curve already. */
    resumedAt(step: number): void {
      if (step > 0) last = step;
    },
    async onStep(step: number): Promise<void> {
      if (every <= 0 || slice.length === 0) return;
      const due = Math.floor(step / every) > Math.floor(last / every) || step === steps;
      if (!due || step === last) return;
      last = step;
      const t0 = performance.now();
      const asInPhase: Answerer = (batch, g) => answer(batch, { ...g, phase }); // a Coconut stage decodes as it trains
      const r = await evaluateAnswers(asInPhase, slice, data.task, settings, { seed, quiet: true });
      if (r !== 'interrupted') await record.log(step, { [`${phase}/val_acc`]: r.accuracy });
      curve.seconds += (performance.now() - t0) / 1000;
    },
  };
  return curve;
}
