/**
 * Bootstrap intervals over questions and seeds (Efron & Tibshirani 1993, percentile intervals).
 * An arm's outcomes are a 0/1 correctness per question for each seed, on the same questions.
 * - `seedMeanSpread`: the standard deviation of an arm's seed-mean accuracy under a two-level
 *   bootstrap — each draw resamples the questions once (the same draw for every seed, so a
 *   question answered under three seeds counts once, not three times) and then the seeds.
 * - `pairedDifference`: the accuracy difference of two arms on the questions both answered, with
 *   a 95 % percentile interval; each draw resamples the questions (shared by both arms, which is
 *   what pairs them) and the seeds (jointly when both arms ran the same seeds, else per arm).
 * Draws come from a seeded Rng, so a report is rebuilt identically from the same records.
 */
import { Rng } from '@telepath/core';

export interface Outcomes {
  seeds: number[];
  /** Per seed (same order as `seeds`): question id → answered correctly. */
  correct: Map<string, boolean>[];
}

export const BOOTSTRAP_DRAWS = 2000;

/** Question ids present in every seed of every given arm, in a fixed order. */
function commonIds(arms: Outcomes[]): string[] {
  const all = arms.flatMap((a) => a.correct);
  if (all.length === 0) return [];
  return [...all[0].keys()].filter((id) => all.every((m) => m.has(id))).sort();
}

function matrix(o: Outcomes, ids: string[]): Uint8Array[] {
  return o.correct.map((m) => Uint8Array.from(ids, (id) => (m.get(id) ? 1 : 0)));
}

/** Mean over the drawn seeds of each seed's accuracy on the drawn questions (weights = multiplicities). */
function drawnMean(rows: Uint8Array[], weights: Uint32Array, n: number, seedDraw: number[]): number {
  let sum = 0;
  for (const s of seedDraw) {
    const row = rows[s];
    let c = 0;
    for (let q = 0; q < n; q++) if (row[q]) c += weights[q];
    sum += c / n;
  }
  return sum / seedDraw.length;
}

function drawQuestions(rng: Rng, n: number): Uint32Array {
  const w = new Uint32Array(n);
  for (let i = 0; i < n; i++) w[rng.int(n)]++;
  return w;
}

const drawSeeds = (rng: Rng, k: number) => Array.from({ length: k }, () => rng.int(k));
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

function quantile(sorted: number[], q: number): number {
  const at = (sorted.length - 1) * q;
  const lo = Math.floor(at);
  return sorted[lo] + (sorted[Math.min(lo + 1, sorted.length - 1)] - sorted[lo]) * (at - lo);
}

/** Seed-mean accuracy of one arm on its common questions and the bootstrap standard deviation of it. */
export function seedMeanSpread(o: Outcomes, rng: Rng, draws = BOOTSTRAP_DRAWS): { accuracy: number; sd: number; n: number } {
  const ids = commonIds([o]);
  const n = ids.length;
  if (n === 0) return { accuracy: Number.NaN, sd: Number.NaN, n: 0 };
  const rows = matrix(o, ids);
  const all = rows.map((_, s) => s);
  const accuracy = drawnMean(rows, new Uint32Array(n).fill(1), n, all);
  const xs: number[] = [];
  for (let b = 0; b < draws; b++) xs.push(drawnMean(rows, drawQuestions(rng, n), n, drawSeeds(rng, rows.length)));
  const m = mean(xs);
  return { accuracy, sd: Math.sqrt(xs.reduce((a, x) => a + (x - m) ** 2, 0) / (xs.length - 1)), n: n * rows.length };
}

export interface PairedDifference {
  /** accuracy(arm) − accuracy(baseline) on the questions both answered (seed means). */
  diff: number;
  /** 2.5 % and 97.5 % percentiles of the bootstrap differences. */
  lo: number;
  hi: number;
  /** Questions both arms answered in every seed. */
  questions: number;
}

export function pairedDifference(arm: Outcomes, base: Outcomes, rng: Rng, draws = BOOTSTRAP_DRAWS): PairedDifference {
  const ids = commonIds([arm, base]);
  const n = ids.length;
  if (n === 0) return { diff: Number.NaN, lo: Number.NaN, hi: Number.NaN, questions: 0 };
  const [a, b] = [matrix(arm, ids), matrix(base, ids)];
  const ones = new Uint32Array(n).fill(1);
  const diff = drawnMean(a, ones, n, a.map((_, s) => s)) - drawnMean(b, ones, n, b.map((_, s) => s));
  const sameSeeds = arm.seeds.length === base.seeds.length && arm.seeds.every((s, i) => s === base.seeds[i]);
  const xs: number[] = [];
  for (let d = 0; d < draws; d++) {
    const w = drawQuestions(rng, n);
    const sa = drawSeeds(rng, a.length);
    const sb = sameSeeds ? sa : drawSeeds(rng, b.length);
    xs.push(drawnMean(a, w, n, sa) - drawnMean(b, w, n, sb));
  }
  xs.sort((x, y) => x - y);
  return { diff, lo: quantile(xs, 0.025), hi: quantile(xs, 0.975), questions: n };
}
