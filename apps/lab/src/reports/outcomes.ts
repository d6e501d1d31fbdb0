/**
 * Per-question correctness of every arm × seed, read back from the run records (samples.jsonl,
 * samples.<test set>.jsonl, samples.control-<control>.jsonl: each line has the question `id` and
 * `correct`), for the bootstrap.
 * A reused arm's samples are in the run that trained it (`reusedFrom`). Runs without samples
 * (none written, or removed) are left out; the table then falls back to binomial errors.
 */
import { existsSync, promises as fs } from 'node:fs';
import * as path from 'node:path';
import { controlSamplesFile, samplesFile } from '../evaluation/arm-eval.js';
import type { Outcomes } from './bootstrap.js';
import type { ArmSummary } from '../running/arm-summary.js';

/** Key of a table row's outcomes: the arm, and the test set or latent control ('' = the main test set). */
export const outcomeKey = (arm: string, testSet = '') => (testSet ? `${arm} [${testSet}]` : arm);

/** Where an arm × seed's samples are: `<runs>/<experiment>/<arm>/s<seed>`, or the reused source's. */
export function samplesDir(runsDir: string, r: ArmSummary): string {
  const [exp, arm] = r.reusedFrom ? r.reusedFrom.split('/') : [r.experiment, r.arm];
  return path.join(runsDir, exp, arm, `s${r.seed}`);
}

/** Question id → score: `passScore` (the share of sampled passes right) where the run wrote it, else `correct` as 1 or 0. */
async function readCorrect(file: string): Promise<Map<string, number> | null> {
  if (!existsSync(file)) return null;
  const out = new Map<string, number>();
  for (const [i, line] of (await fs.readFile(file, 'utf8')).split('\n').entries()) {
    if (line.trim() === '') continue;
    let s: { id?: unknown; correct?: unknown; passScore?: unknown };
    try {
      s = JSON.parse(line) as typeof s;
    } catch (e) {
      throw new Error(`${file}:${i + 1}: not valid JSON (${(e as Error).message})`);
    }
    if (typeof s.id !== 'string' || typeof s.correct !== 'boolean')
      throw new Error(`${file}:${i + 1}: expected "id" (string) and "correct" (boolean)`);
    if (s.passScore !== undefined && !(typeof s.passScore === 'number' && s.passScore >= 0 && s.passScore <= 1))
      throw new Error(`${file}:${i + 1}: "passScore" must be a number in [0, 1], got ${JSON.stringify(s.passScore)}`);
    out.set(s.id, s.passScore ?? (s.correct ? 1 : 0));
  }
  return out;
}

/** Outcomes per row key; a row appears only when every one of its seeds has its samples. */
export async function readOutcomes(runsDir: string, results: ArmSummary[]): Promise<Map<string, Outcomes>> {
  const out = new Map<string, Outcomes>();
  const missing = new Set<string>();
  for (const r of results) {
    const files = [
      ...['', ...Object.keys(r.tests ?? {})].map((t) => [outcomeKey(r.arm, t), samplesFile(t)]),
      ...Object.keys(r.controls ?? {}).map((c) => [outcomeKey(r.arm, c), controlSamplesFile(c)]),
    ];
    for (const [key, file] of files) {
      const correct = await readCorrect(path.join(samplesDir(runsDir, r), file));
      if (!correct) {
        missing.add(key);
        continue;
      }
      const o = out.get(key) ?? { seeds: [], correct: [] };
      o.seeds.push(r.seed);
      o.correct.push(correct);
      out.set(key, o);
    }
  }
  for (const k of missing) out.delete(k);
  return out;
}
