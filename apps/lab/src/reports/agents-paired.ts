/**
 * The bootstrap view of every row of a ThoughtComm agents table: the spread of its seed-mean accuracy
 * (questions and seeds resampled, so seeds that share the questions do not shrink it) and its paired
 * difference from the majority vote of the same agents without communication (every row answers the
 * same questions, so each draw resamples the questions once for both; bootstrap.ts). Each seed's samples.jsonl
 * (`<experiment>/s<seed>/samples.jsonl`) holds each question's 0/1 score under every row
 * (`correct`, keyed by the row's name); records written before that field give no differences.
 */
import * as path from 'node:path';
import { readJsonl } from '@telepath/core';
import { VOTE_ROW, type RowBootstrap } from '@telepath/thought-comm';
import { pairedDifference, reportResampler, seedMeanSpread, type Outcomes } from './bootstrap.js';

/** row name → its scores by question id, for one seed (empty without the file); null when its records predate `correct`. */
async function readRowScores(file: string): Promise<Map<string, Map<string, number>> | null> {
  const rows = new Map<string, Map<string, number>>();
  for (const [i, line] of ((await readJsonl(file)) as { id?: unknown; correct?: unknown }[]).entries()) {
    if (line.correct === undefined) return null;
    const where = `${file}:${i + 1}`; // samples.jsonl has no blank lines: record i is line i + 1
    if (typeof line.id !== 'string' || typeof line.correct !== 'object' || line.correct === null)
      throw new Error(`${where}: expected "id" (string) and "correct" (an object of row name → 0 or 1)`);
    for (const [row, v] of Object.entries(line.correct)) {
      if (v !== 0 && v !== 1) throw new Error(`${where}: correct["${row}"] must be 0 or 1, got ${JSON.stringify(v)}`);
      if (!rows.has(row)) rows.set(row, new Map());
      rows.get(row)!.set(line.id, v);
    }
  }
  return rows;
}

/** Row name → its bootstrap spread and paired difference from the vote (fractions), over the seeds whose samples carry scores. */
export async function agentsBootstrap(experimentDir: string, seeds: number[]): Promise<Map<string, RowBootstrap>> {
  const outcomes = new Map<string, Outcomes>();
  for (const seed of seeds) {
    const rows = await readRowScores(path.join(experimentDir, `s${seed}`, 'samples.jsonl'));
    if (!rows) continue;
    for (const [row, correct] of rows) {
      if (!outcomes.has(row)) outcomes.set(row, { seeds: [], correct: [] });
      outcomes.get(row)!.seeds.push(seed);
      outcomes.get(row)!.correct.push(correct);
    }
  }
  const vote = outcomes.get(VOTE_ROW);
  const out = new Map<string, RowBootstrap>();
  const resampler = reportResampler();
  for (const [row, o] of outcomes) {
    const sd = seedMeanSpread(o, resampler).sd;
    if (row === VOTE_ROW || !vote) out.set(row, { sd });
    else {
      const { diff, lo, hi } = pairedDifference(o, vote, resampler);
      out.set(row, { sd, vsVote: { diff, lo, hi } });
    }
  }
  return out;
}
