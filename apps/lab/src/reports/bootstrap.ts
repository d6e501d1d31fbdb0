/**
 * Bootstrap intervals over questions and seeds (Efron & Tibshirani 1993, percentile intervals).
 * An arm's outcomes are a score per question for each seed, on the same questions: 1 right, 0
 * wrong, or for an arm decoded in several sampled passes the share of them that answered it right.
 * - `seedMeanSpread`: the standard deviation of an arm's seed-mean accuracy under a two-level
 *   bootstrap — each draw resamples the questions once (the same draw for every seed, so a
 *   question answered under three seeds counts once, not three times) and then the seeds.
 * - `pairedDifference`: the accuracy difference of two arms on the questions both answered, with
 *   a 95 % percentile interval; each draw resamples the questions (shared by both arms, which is
 *   what pairs them) and the seeds (jointly when both arms ran the same seeds, else per arm).
 * Draws come from a seeded Rng (`Resampler`, shared by a table's rows), so a report is rebuilt
 * identically from the same records.
 */
import { Rng } from '@telepath/core';

export interface Outcomes {
  seeds: number[];
  /** Per seed (same order as `seeds`): question id → its score in [0, 1] (1 right, 0 wrong, or the share of passes right). */
  correct: Map<string, number>[];
}

export const BOOTSTRAP_DRAWS = 2000;

/** Question ids present in every seed of every given arm, in a fixed order. */
function commonIds(arms: Outcomes[]): string[] {
  const all = arms.flatMap((a) => a.correct);
  if (all.length === 0) return [];
  return [...all[0].keys()].filter((id) => all.every((m) => m.has(id))).sort();
}

/**
 * One seed's answers on the common questions. All 0/1: stored by the smaller of the two classes
 * (so a draw costs at most half the questions), the indices of the correct answers or of the wrong
 * ones. Otherwise (shares of passes): the score of every question.
 */
type SeedAnswers = { indices: Uint32Array; ofCorrect: boolean } | { scores: Float64Array };

function matrix(o: Outcomes, ids: string[]): SeedAnswers[] {
  return o.correct.map((m) => {
    const scores = ids.map((id) => m.get(id)!);
    if (scores.some((x) => x !== 0 && x !== 1)) return { scores: Float64Array.from(scores) };
    const right = ids.flatMap((_, q) => (scores[q] === 1 ? [q] : []));
    const ofCorrect = 2 * right.length <= ids.length;
    return {
      indices: Uint32Array.from(ofCorrect ? right : ids.flatMap((_, q) => (scores[q] === 1 ? [] : [q]))),
      ofCorrect,
    };
  });
}

/** Mean over the drawn seeds of each seed's accuracy on the drawn questions (weights = multiplicities, summing to n). */
function drawnMean(rows: SeedAnswers[], weights: Uint32Array, n: number, seedDraw: number[]): number {
  let sum = 0;
  for (const s of seedDraw) {
    const row = rows[s];
    let c = 0;
    if ('scores' in row) {
      for (let q = 0; q < n; q++) c += weights[q] * row.scores[q];
      sum += c / n;
      continue;
    }
    for (let i = 0; i < row.indices.length; i++) c += weights[row.indices[i]];
    sum += (row.ofCorrect ? c : n - c) / n;
  }
  return sum / seedDraw.length;
}

/**
 * The bootstrap draws, made once and shared by every row of a table: for n questions, `draws`
 * vectors of multiplicities (n indices drawn with replacement); for k seeds, `draws` lists of k
 * seed indices (two independent streams, for arms with different seeds). Each comes from its own
 * fork of the Rng, so the draws do not depend on the order rows ask for them.
 */
export class Resampler {
  private readonly questionDraws = new Map<number, Uint32Array[]>();
  private readonly seedDraws = new Map<string, number[][]>();

  constructor(
    private readonly rng: Rng,
    readonly draws = BOOTSTRAP_DRAWS,
  ) {}

  questions(n: number): Uint32Array[] {
    let out = this.questionDraws.get(n);
    if (!out) {
      const rng = this.rng.fork(`questions/${n}`);
      out = Array.from({ length: this.draws }, () => {
        const w = new Uint32Array(n);
        for (let i = 0; i < n; i++) w[rng.int(n)]++;
        return w;
      });
      this.questionDraws.set(n, out);
    }
    return out;
  }

  seeds(k: number, stream: 'a' | 'b' = 'a'): number[][] {
    const key = `${k}/${stream}`;
    let out = this.seedDraws.get(key);
    if (!out) {
      const rng = this.rng.fork(`seeds/${key}`);
      out = Array.from({ length: this.draws }, () => Array.from({ length: k }, () => rng.int(k)));
      this.seedDraws.set(key, out);
    }
    return out;
  }
}

/** The draws every report table uses (one fixed seed), so a table is rebuilt identically from its records. */
export const reportResampler = (): Resampler => new Resampler(new Rng(0).fork('bootstrap'));

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

/** The q-quantile of sorted values, linearly interpolated. */
export function quantile(sorted: number[], q: number): number {
  const at = (sorted.length - 1) * q;
  const lo = Math.floor(at);
  return sorted[lo] + (sorted[Math.min(lo + 1, sorted.length - 1)] - sorted[lo]) * (at - lo);
}

/** Seed-mean accuracy of one arm on its common questions and the bootstrap standard deviation of it. */
export function seedMeanSpread(o: Outcomes, r: Resampler): { accuracy: number; sd: number; n: number } {
  const ids = commonIds([o]);
  const n = ids.length;
  if (n === 0) return { accuracy: Number.NaN, sd: Number.NaN, n: 0 };
  const rows = matrix(o, ids);
  const accuracy = drawnMean(
    rows,
    new Uint32Array(n).fill(1),
    n,
    rows.map((_, s) => s),
  );
  const [qs, ss] = [r.questions(n), r.seeds(rows.length)];
  const xs = qs.map((w, d) => drawnMean(rows, w, n, ss[d]));
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

export function pairedDifference(arm: Outcomes, base: Outcomes, r: Resampler): PairedDifference {
  const ids = commonIds([arm, base]);
  const n = ids.length;
  if (n === 0) return { diff: Number.NaN, lo: Number.NaN, hi: Number.NaN, questions: 0 };
  const [a, b] = [matrix(arm, ids), matrix(base, ids)];
  const ones = new Uint32Array(n).fill(1);
  const diff =
    drawnMean(
      a,
      ones,
      n,
      a.map((_, s) => s),
    ) -
    drawnMean(
      b,
      ones,
      n,
      b.map((_, s) => s),
    );
  const sameSeeds = arm.seeds.length === base.seeds.length && arm.seeds.every((s, i) => s === base.seeds[i]);
  const [sa, sb] = [r.seeds(a.length), sameSeeds ? r.seeds(a.length) : r.seeds(b.length, 'b')];
  const xs = r.questions(n).map((w, d) => drawnMean(a, w, n, sa[d]) - drawnMean(b, w, n, sb[d]));
  xs.sort((x, y) => x - y);
  return { diff, lo: quantile(xs, 0.025), hi: quantile(xs, 0.975), questions: n };
}
