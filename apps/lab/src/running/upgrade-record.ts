/**
 * Finished runs recorded before the diagnostics, the further test sets and the controls'
 * per-question scores existed gain them without retraining when `telepath run` reads them back:
 * - diagnostics: recomputed from the recorded samples (their text and answer) and the task's
 *   questions, matched by id (skipped when a sample's question is not in the data any more);
 * - further test sets (Countdown's other split): evaluated with the arm's final weights
 *   (final.ckpt; skipped for runs that predate it), samples to samples.<name>.jsonl;
 * - each recorded latent control's per-question scores (samples.control-<control>.jsonl):
 *   evaluated again with the final weights and the run's seed, kept only when the count of right
 *   answers equals the recorded one (the same evaluation), else left out with a warning;
 * - an arm decoded in several sampled passes: each question's share of the passes right
 *   (`passScore` in samples.jsonl, what the paired intervals read), from every pass evaluated
 *   again, kept only when each pass's count of right answers equals the recorded one.
 * The summary is rewritten atomically with the added fields and `upgraded` saying what was added
 * and when; nothing it already held changes.
 */
import { closeSync, existsSync, promises as fs, openSync, readSync } from 'node:fs';
import * as path from 'node:path';
import { SPECIAL_TOKENS, writeFileAtomic, type LatentControl } from '@telepath/core';
import { diagnoseChain, reasoningText } from '@telepath/tasks';
import {
  capped,
  controlSamplesFile,
  samplesFile,
  testSetResult,
  writeSamples,
  type TestSetResult,
} from '../evaluation/arm-eval.js';
import type { TaskData } from '../experiment/data.js';
import { emptyDiagnostics, tallyDiagnosis, type Diagnostics } from '../evaluation/diagnostics.js';
import { evaluateAnswers, writtenChainCapped, type Answerer, type EvalResult } from '../evaluation/evaluate.js';
import { passScores } from '../evaluation/eval-passes.js';
import { writeControlScores } from '../evaluation/controls.js';
import type { ExperimentConfig } from '../experiment/experiment.js';
import type { ArmSummary } from './arm-summary.js';

interface Missing {
  diagnostics: boolean;
  tests: string[];
  /** Recorded controls without their per-question scores. */
  controls: string[];
  /** A multi-pass arm whose samples lack each question's share of passes right. */
  passScores: boolean;
}

/**
 * What a finished record lacks that can be added, from the names of the further test sets its
 * data has (`extraTestNames`): `canEvaluate` when the arm's final weights (or rule) are at hand.
 */
export function missingFromRecord(extraTests: string[], s: ArmSummary, dir: string, canEvaluate: boolean): Missing {
  return {
    diagnostics: !s.diagnostics && existsSync(path.join(dir, samplesFile())),
    tests: canEvaluate ? extraTests.filter((k) => !s.tests?.[k]) : [],
    controls: canEvaluate
      ? Object.keys(s.controls ?? {}).filter(
          (c) => !existsSync(path.join(dir, controlSamplesFile(c))) && !s.controlScoresUnreproduced?.includes(c),
        )
      : [],
    passScores: canEvaluate && (s.passes?.n ?? 1) > 1 && !s.passScoresUnreproduced && !firstSampleHasPassScore(dir),
  };
}

/** Whether samples.jsonl's first line carries `passScore` (a run writes it on every line or none). */
function firstSampleHasPassScore(dir: string): boolean {
  const file = path.join(dir, samplesFile());
  if (!existsSync(file)) return true; // nothing to add it to
  const first = readFirstLine(file);
  return first.trim() === '' || 'passScore' in (JSON.parse(first) as object);
}

/** The file's text up to its first newline, read in chunks so a long samples file is not loaded whole. */
function readFirstLine(file: string): string {
  const fd = openSync(file, 'r');
  try {
    const chunks: Buffer[] = [];
    const chunk = Buffer.alloc(64 * 1024);
    for (let read = readSync(fd, chunk); read > 0; read = readSync(fd, chunk)) {
      const newline = chunk.subarray(0, read).indexOf(0x0a);
      chunks.push(Buffer.from(chunk.subarray(0, newline === -1 ? read : newline)));
      if (newline !== -1) break;
    }
    return Buffer.concat(chunks).toString('utf8');
  } finally {
    closeSync(fd);
  }
}

export const nothingMissing = (m: Missing) =>
  !m.diagnostics && m.tests.length === 0 && m.controls.length === 0 && !m.passScores;

interface RecordedSample {
  id: string;
  prediction: string;
  text: string;
  reasoningLength: number;
}

/** Diagnostics of recorded samples, or null when one of their questions is not in `data.test`. */
async function diagnosticsFromSamples(dir: string, data: TaskData, reasoningKind: string): Promise<Diagnostics | null> {
  const byId = new Map(data.test.map((ex) => [ex.id, ex]));
  const lines = (await fs.readFile(path.join(dir, samplesFile()), 'utf8')).split('\n').filter((l) => l.trim() !== '');
  const d = emptyDiagnostics();
  for (const line of lines) {
    const s = JSON.parse(line) as RecordedSample;
    const ex = byId.get(s.id);
    if (!ex) return null;
    const chain = reasoningKind === 'tokens' ? reasoningText(s.text) : null;
    tallyDiagnosis(
      d,
      diagnoseChain(data.task, ex, chain, `### ${s.prediction}`),
      !s.text.includes(SPECIAL_TOKENS.eos),
      reasoningKind === 'tokens' && writtenChainCapped(s.text),
    );
  }
  // A latent chain's cap is its method's to report; old samples do not record it.
  if (reasoningKind === 'latents') d.reasoningCapped = null;
  return d;
}

/**
 * Each question's share of right answers over the recorded passes, from every pass evaluated again
 * (pass k on its own stream, as eval-passes.ts draws it); 'unreproduced' when a pass's count of
 * right answers differs from the recorded one; null when interrupted.
 */
async function passScoresAgain(
  answer: Answerer,
  test: TaskData['test'],
  s: ArmSummary,
  o: { data: TaskData; eval: ExperimentConfig['eval'] & { maxNewTokens: number }; log: (line: string) => void },
): Promise<Map<string, number> | 'unreproduced' | null> {
  const recorded = s.passes!.accuracies;
  const passes: EvalResult[] = [];
  for (const [k, accuracy] of recorded.entries()) {
    const r = await evaluateAnswers(answer, test, o.data.task, o.eval, { seed: s.seed, quiet: true, pass: k });
    if (r === 'interrupted') return null;
    if (r.correct !== Math.round(accuracy * r.total)) {
      o.log(
        `[telepath] ${s.arm} s${s.seed}: pass ${k + 1} gave ${r.correct} right on evaluating again against ${Math.round(accuracy * r.total)} recorded; its samples keep the first pass's answers only`,
      );
      return 'unreproduced';
    }
    passes.push(r);
  }
  return passScores(passes);
}

/** samples.jsonl with each line's `passScore` added (atomically); every line's question must have one. */
async function addPassScores(dir: string, scores: Map<string, number>): Promise<void> {
  const file = path.join(dir, samplesFile());
  const lines = (await fs.readFile(file, 'utf8')).split('\n').filter((l) => l.trim() !== '');
  const out = lines.map((line, i) => {
    const sample = JSON.parse(line) as { id: string };
    const score = scores.get(sample.id);
    if (score === undefined) throw new Error(`${file}:${i + 1}: question ${sample.id} was not evaluated again`);
    return JSON.stringify({ ...sample, passScore: score });
  });
  await writeFileAtomic(file, out.join('\n') + '\n');
}

export async function upgradeRecord(
  s: ArmSummary,
  dir: string,
  missing: Missing,
  o: {
    data: TaskData;
    eval: ExperimentConfig['eval'] & { maxNewTokens: number };
    answerer: () => Promise<{ answer: Answerer; dispose(): void }>;
    log: (line: string) => void;
  },
): Promise<ArmSummary> {
  const added: string[] = [];
  const out: ArmSummary = { ...s };
  if (missing.diagnostics) {
    const d = await diagnosticsFromSamples(dir, o.data, s.reasoningKind);
    if (d) {
      out.diagnostics = d;
      added.push('diagnostics');
    }
  }
  if (missing.tests.length || missing.controls.length || missing.passScores) {
    const { answer, dispose } = await o.answerer();
    try {
      const test = capped(o.data.test, o.eval.maxExamples);
      if (missing.passScores) {
        const scores = await passScoresAgain(answer, test, s, o);
        if (scores === 'unreproduced') {
          out.passScoresUnreproduced = true;
          added.push('passScoresUnreproduced');
        } else if (scores) {
          await addPassScores(dir, scores);
          added.push('passScore in samples.jsonl');
        }
      }
      for (const control of missing.controls) {
        const r = await evaluateAnswers(answer, test, o.data.task, o.eval, {
          seed: s.seed,
          quiet: true,
          control: control as LatentControl,
        });
        if (r === 'interrupted') break;
        const recorded = s.controls![control].correct;
        if (r.correct !== recorded) {
          o.log(
            `[telepath] ${s.arm} s${s.seed}: control ${control} gave ${r.correct} right on evaluating again against ${recorded} recorded; its per-question scores are left out`,
          );
          out.controlScoresUnreproduced = [...(out.controlScoresUnreproduced ?? []), control];
          added.push(`controlScoresUnreproduced ${control}`);
          continue;
        }
        await writeControlScores(dir, control, r.samples);
        added.push(controlSamplesFile(control));
      }
      const tests: Record<string, TestSetResult> = { ...(s.tests ?? {}) };
      for (const name of missing.tests) {
        const examples = capped(o.data.extraTests![name], o.eval.maxExamples);
        const r = await evaluateAnswers(answer, examples, o.data.task, o.eval, { seed: s.seed, quiet: true });
        if (r === 'interrupted') break;
        await writeSamples(dir, r.samples, name);
        tests[name] = testSetResult(r);
        added.push(`tests.${name}`);
      }
      out.tests = tests;
    } finally {
      dispose();
    }
  }
  if (added.length === 0) return s;
  const upgraded = [
    ...((s as { upgraded?: string[] }).upgraded ?? []),
    `${added.join(', ')} added from the record on ${new Date().toISOString().slice(0, 10)}`,
  ];
  const record = { ...out, upgraded };
  await writeFileAtomic(path.join(dir, 'summary.json'), JSON.stringify(record, null, 2) + '\n');
  o.log(`[telepath] ${s.arm} s${s.seed}: added ${added.join(', ')} to its record (${dir}) without retraining`);
  return record;
}
