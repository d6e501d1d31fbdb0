/**
 * Paired differences of every row of a ThoughtComm agents table from the majority vote of the same
 * agents without communication: every row answers the same questions, so each bootstrap draw
 * resamples the questions once for both (bootstrap.ts). Each seed's samples.jsonl
 * (`<experiment>/s<seed>/samples.jsonl`) holds each question's 0/1 score under every row
 * (`correct`, keyed by the row's name); records written before that field give no differences.
 */
import * as path from 'node:path';
import { readJsonl } from '@telepath/core';
import { VOTE_ROW, type VoteDifference } from '@telepath/thought-comm';
import { pairedDifference, reportResampler, type Outcomes } from './bootstrap.js';

/** row name → its scores by question id, for one seed (empty without the file); null when its records predate `correct`. */
async function readRowScores(file: string): Promise<Map<string, Map<string, boolean>> | null> {
  const rows = new Map<string, Map<string, boolean>>();
  for (const [i, line] of ((await readJsonl(file)) as { id?: unknown; correct?: unknown }[]).entries()) {
    if (line.correct === undefined) return null;
    const where = `${file}:${i + 1}`; // samples.jsonl has no blank lines: record i is line i + 1
    if (typeof line.id !== 'string' || typeof line.correct !== 'object' || line.correct === null)
      throw new Error(`${where}: expected "id" (string) and "correct" (an object of row name → 0 or 1)`);
    for (const [row, v] of Object.entries(line.correct)) {
      if (v !== 0 && v !== 1) throw new Error(`${where}: correct["${row}"] must be 0 or 1, got ${JSON.stringify(v)}`);
      if (!rows.has(row)) rows.set(row, new Map());
      rows.get(row)!.set(line.id, v === 1);
    }
  }
  return rows;
}

/** Row name → paired difference from the vote (fractions), over the seeds whose samples carry scores. */
export async function agentsVsVote(experimentDir: string, seeds: number[]): Promise<Map<string, VoteDifference>> {
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
  const out = new Map<string, VoteDifference>();
  if (!vote) return out;
  const resampler = reportResampler();
  for (const [row, o] of outcomes) if (row !== VOTE_ROW) out.set(row, pairedDifference(o, vote, resampler));
  return out;
}
