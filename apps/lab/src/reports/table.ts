/**
 * The comparison table: one row per arm (mean over seeds), one per latent control and one per
 * further test set (Countdown's other split, "<arm> [val_target]"). Accuracy carries ± the
 * bootstrap spread of the seed mean (questions resampled once for all seeds, then seeds:
 * bootstrap.ts) where the records hold per-question samples, else the binomial error; each arm
 * carries its difference from every baseline (`compareTo`) with a paired bootstrap 95 % interval
 * (a control's row, its difference from the arm's own latents),
 * the diagnostics of its generations, reasoning length, sound written steps, decode time, training
 * time and parameters. Built with arquero; rendered as text, markdown and CSV.
 */
import * as aq from 'arquero';
import { pairedDifference, reportResampler, seedMeanSpread, type Outcomes, type Resampler } from './bootstrap.js';
import { diagnosticRates, diagnosticsOf, sumDiagnostics, type Diagnostics } from '../evaluation/diagnostics.js';
import { outcomeKey } from './outcomes.js';
import type { ArmSummary } from '../running/arm-summary.js';

/** How an arm's ± is computed (stated in the report's header). */
export const SPREAD_METHOD =
  '± is the standard deviation of the seed-mean accuracy over 2,000 bootstrap draws that resample the questions (one draw shared by every seed, so a question answered under several seeds counts once) and then the seeds; Δ is the accuracy difference from a baseline arm on the questions both answered, [lo, hi] its paired bootstrap 95 % interval (the same draws of questions and seeds for both arms); the row of a latent control (arm [zero], [shuffle], [random]) is paired with its own arm instead, in the Δ own arm column. Rows marked * have no per-question records: their ± is the mean of the binomial standard errors of the seeds (the seeds answer the same questions, so more of them do not shrink it).';

/** The `baseline` of a control row's paired difference: the arm itself, with its own latents. */
export const OWN_ARM = 'own arm';

export interface Paired {
  baseline: string;
  diff: number;
  lo: number;
  hi: number;
  questions: number;
}

export interface ArmRow {
  arm: string;
  method: string;
  /** The reference the arm's weights start from (root of its initFrom chain; '' in records that predate it). */
  startsFrom: string;
  seeds: number;
  accuracy: number;
  stderr: number;
  /** 'bootstrap' (from per-question records) or 'binomial' (summaries only). */
  spread: 'bootstrap' | 'binomial';
  reasoningLength: number;
  reasoningKind: string;
  /** Share of answers with sound written reasoning (NaN when the arm's reasoning is not checked). */
  validReasoning: number;
  msPerExample: number;
  trainSeconds: number;
  params: number;
  /** Answers scored: questions × seeds. */
  n: number;
  /**
   * Difference from each baseline arm (the same test set's row), where both have per-question
   * records; a control row's difference from its own arm instead (baseline OWN_ARM).
   */
  paired: Paired[];
  /** Control rows only: the arm whose latents the control replaced. */
  controlOf?: string;
  /** Seeds' diagnostics added up; null for control rows. */
  diagnostics: Diagnostics | null;
  /** The arm's own row only: controls not evaluated because they cannot change its latents, with why. */
  vacuousControls?: Record<string, string>;
}

export interface CompareOptions {
  /** Per-question outcomes by row key (outcomes.ts); rows without fall back to binomial errors. */
  outcomes?: Map<string, Outcomes>;
  /** Baseline arm names. */
  compareTo?: string[];
}

/**
 * The mean over seeds of a column, as arquero's rollup computes it: the seeds' sum in seed order over
 * their count, so the last digits are those of a plain loop (op.mean keeps a running mean, whose
 * last bits differ), and NaN if any seed lacks the value.
 */
const seedMean = (column: string) => `d => op.invalid(d['${column}']) ? NaN : op.sum(d['${column}']) / op.count()`;

/**
 * Every score of every arm × seed as one row: the arm's own test set (`name` ''), each further test
 * set and each control (those its first seed has). Values go through Number() as the sums always
 * took them (a null as 0, a missing value as NaN).
 */
function seedScores(results: ArmSummary[]) {
  const first = new Map<string, ArmSummary>();
  for (const r of results) if (!first.has(r.arm)) first.set(r.arm, r);
  return results.flatMap((r) => {
    const f = first.get(r.arm)!;
    const score = (
      kind: 'own' | 'test' | 'control',
      name: string,
      x: { accuracy: number; stderr: number; total: number },
    ) => ({
      arm: r.arm,
      kind,
      name,
      accuracy: Number(x.accuracy),
      stderr: Number(x.stderr),
      total: Number(x.total),
    });
    const tests = Object.keys(f.tests ?? {}).flatMap((t) =>
      r.tests?.[t] !== undefined ? [score('test', t, r.tests[t])] : [],
    );
    const controls = Object.keys(f.controls ?? {}).flatMap((c) =>
      r.controls?.[c] !== undefined ? [score('control', c, r.controls[c])] : [],
    );
    return [score('own', '', r), ...tests, ...controls];
  });
}

/** Mean over seeds, with the spread and paired differences described in SPREAD_METHOD. */
export function aggregate(results: ArmSummary[], o: CompareOptions = {}): ArmRow[] {
  if (results.length === 0) return []; // (a table without rows has no columns to group by)
  const resampler = reportResampler();
  // Per arm: the means over its seeds of what each seed measured once.
  const perArm = aq
    .from(
      results.map((r) => ({
        arm: r.arm,
        reasoningLength: Number(r.reasoningLength),
        validReasoning: Number(r.validReasoning),
        msPerExample: Number(r.msPerExample),
        trainSeconds: Number(r.trainSeconds),
      })),
    )
    .groupby('arm')
    .rollup({
      reasoningLength: seedMean('reasoningLength'),
      validReasoning: seedMean('validReasoning'),
      msPerExample: seedMean('msPerExample'),
      trainSeconds: seedMean('trainSeconds'),
    })
    .objects() as {
    arm: string;
    reasoningLength: number;
    validReasoning: number;
    msPerExample: number;
    trainSeconds: number;
  }[];
  // Per table row (the arm, a further test set, a control): seeds, mean accuracy, answers scored, and the
  // binomial error of the mean: the mean of the seeds' errors, since every seed answers the same questions.
  const perRow = aq
    .from(seedScores(results))
    .groupby('arm', 'kind', 'name')
    .rollup({
      seeds: aq.op.count(),
      accuracy: seedMean('accuracy'),
      binomial: seedMean('stderr'),
      n: `d => op.invalid(d.total) ? NaN : op.sum(d.total)`,
    })
    .objects() as {
    arm: string;
    kind: string;
    name: string;
    seeds: number;
    accuracy: number;
    binomial: number;
    n: number;
  }[];
  const rows = perArm.flatMap((means) => {
    const arm = means.arm;
    const rs = results.filter((r) => r.arm === arm);
    const main: ArmRow = {
      arm,
      method: rs[0].method,
      startsFrom: rs[0].startsFrom ?? '',
      seeds: rs.length,
      accuracy: 0,
      stderr: 0,
      spread: 'binomial',
      reasoningLength: means.reasoningLength,
      reasoningKind: rs[0].reasoningKind,
      validReasoning: means.validReasoning,
      msPerExample: means.msPerExample,
      trainSeconds: means.trainSeconds,
      params: rs[0].params,
      n: 0,
      paired: [],
      diagnostics: sumDiagnostics(rs.map(diagnosticsOf)),
    };
    const scored = (kind: string, key: (name: string) => string, extra: (name: string) => Partial<ArmRow>) =>
      perRow
        .filter((x) => x.arm === arm && x.kind === kind)
        .map((x): ArmRow => {
          const outcomes = o.outcomes?.get(key(x.name));
          const boot = outcomes ? seedMeanSpread(outcomes, resampler) : null;
          return {
            ...main,
            arm: key(x.name),
            seeds: x.seeds,
            accuracy: x.accuracy,
            stderr: boot ? boot.sd : x.binomial,
            spread: boot ? 'bootstrap' : 'binomial',
            n: x.n,
            ...extra(x.name),
          };
        });
    const vacuous = rs[0].vacuousControls;
    const own = scored(
      'own',
      () => arm,
      () => (vacuous && Object.keys(vacuous).length ? { vacuousControls: vacuous } : {}),
    );
    // One row per further test set, with the diagnostics of its generations.
    const tests = scored(
      'test',
      (t) => outcomeKey(arm, t),
      (t) => {
        const diagnostics = sumDiagnostics(
          rs.flatMap((r) => (r.tests?.[t] !== undefined ? [r.tests[t].diagnostics] : [])),
        );
        const { checkedChains, chains } = diagnosticRates(diagnostics);
        return { validReasoning: checkedChains ? (chains.sound ?? 0) : Number.NaN, diagnostics };
      },
    );
    // One row per control: the same arm with its latents zeroed / shuffled / randomised.
    const controls = scored(
      'control',
      (c) => outcomeKey(arm, c),
      () => ({
        validReasoning: Number.NaN,
        msPerExample: Number.NaN,
        trainSeconds: Number.NaN,
        diagnostics: null,
        controlOf: arm,
      }),
    );
    return [...own, ...tests, ...controls];
  });
  for (const row of rows) row.paired = pairedRows(row, rows, o, resampler);
  return rows;
}

/**
 * The row's difference from each baseline's row on the same test set ("cot [val_target]" against
 * "no-cot [val_target]"); a control row's from its own arm ("soft [zero]" against "soft").
 */
function pairedRows(row: ArmRow, rows: ArmRow[], o: CompareOptions, resampler: Resampler): Paired[] {
  const suffix = / \[[^\]]+\]$/.exec(row.arm)?.[0] ?? '';
  const mine = o.outcomes?.get(row.arm);
  if (!mine) return [];
  if (row.controlOf !== undefined) {
    const theirs = o.outcomes?.get(row.controlOf);
    if (!theirs) return [];
    const d = pairedDifference(mine, theirs, resampler);
    return [{ baseline: OWN_ARM, diff: d.diff, lo: d.lo, hi: d.hi, questions: d.questions }];
  }
  return (o.compareTo ?? []).flatMap((base) => {
    const key = base + suffix;
    const theirs = o.outcomes?.get(key);
    if (!theirs || !rows.some((r) => r.arm === key)) return [];
    const d = pairedDifference(mine, theirs, resampler);
    return [{ baseline: base, diff: d.diff, lo: d.lo, hi: d.hi, questions: d.questions }];
  });
}

/** A number for display; '–' where there is none (control rows have no timings of their own). */
export function fixed(x: number, digits: number): string {
  return Number.isFinite(x) ? x.toFixed(digits) : '–';
}

export const pct = (x: number | undefined) => fixed(100 * (x ?? Number.NaN), 1);
const signed = (x: number) => (x >= 0 ? '+' : '') + (100 * x).toFixed(1);

/** "+3.1 [−0.4, +6.5]" (percentage points), or '–' without records. */
export function pairedText(p: Paired | undefined): string {
  return p && Number.isFinite(p.diff) ? `${signed(p.diff)} [${signed(p.lo)}, ${signed(p.hi)}]` : '–';
}

/** The baselines any row is compared with, in compareTo order. */
function baselines(rows: ArmRow[]): string[] {
  return [...new Set(rows.flatMap((r) => r.paired.map((p) => p.baseline)))];
}

function displayTable(rows: ArmRow[]) {
  const checked = rows.some((r) => Number.isFinite(r.validReasoning));
  const bases = baselines(rows);
  return aq.from(
    rows.map((r) => {
      const rates = r.diagnostics ? diagnosticRates(r.diagnostics) : null;
      return {
        arm: r.arm,
        method: r.method,
        'starts from': r.startsFrom || '–',
        seeds: r.seeds,
        'accuracy %': `${(100 * r.accuracy).toFixed(1)} ± ${(100 * r.stderr).toFixed(1)}${r.spread === 'binomial' ? '*' : ''}`,
        ...Object.fromEntries(
          bases.map((b) => [`Δ ${b} (pp, 95 %)`, pairedText(r.paired.find((p) => p.baseline === b))]),
        ),
        'reasoning length':
          `${r.reasoningLength.toFixed(1)} ${r.reasoningKind === 'latents' ? 'latents' : r.reasoningKind === 'tokens' ? 'tokens' : ''}`.trim(),
        ...(checked
          ? { 'sound steps %': Number.isFinite(r.validReasoning) ? (100 * r.validReasoning).toFixed(1) : '–' }
          : {}),
        'agrees %': pct(rates?.agrees),
        'reasoning capped %': pct(rates?.reasoningCapped),
        'answer capped %': pct(rates?.hitCap),
        'ms / example': fixed(r.msPerExample, 1),
        'train s': fixed(r.trainSeconds, 0),
        params: r.params.toLocaleString('en'),
        n: r.n,
      };
    }),
  );
}

/**
 * One line per control an arm did not run because it cannot fail (LatentMethod.vacuousControls),
 * printed under the table in place of its row.
 */
export function vacuousNotes(rows: ArmRow[]): string[] {
  return rows.flatMap((r) =>
    Object.entries(r.vacuousControls ?? {}).map(([c, why]) => `${r.arm} [${c}]: not run, vacuous: ${why}`),
  );
}

export function tableMarkdown(rows: ArmRow[]): string {
  const notes = vacuousNotes(rows);
  return displayTable(rows).toMarkdown() + (notes.length ? `\n\n${notes.map((n) => `- ${n}`).join('\n')}` : '');
}

export function tableCsv(rows: ArmRow[]): string {
  const bases = baselines(rows);
  return aq
    .from(
      rows.map(({ paired, diagnostics: _d, vacuousControls: _v, ...r }) => ({
        ...r,
        ...Object.fromEntries(
          bases.flatMap((b) => {
            const p = paired.find((x) => x.baseline === b);
            return [
              [`diff_${b}`, p?.diff ?? ''],
              [`lo_${b}`, p?.lo ?? ''],
              [`hi_${b}`, p?.hi ?? ''],
            ];
          }),
        ),
      })),
    )
    .toCSV();
}

/** Fixed-width text for the terminal. */
export function tableText(rows: ArmRow[]): string {
  const objs = displayTable(rows).objects() as Record<string, unknown>[];
  if (objs.length === 0) return '(no finished arms)';
  const head = Object.keys(objs[0]);
  const cells = objs.map((o) => head.map((h) => String(o[h])));
  const widths = head.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i].length)));
  const line = (c: string[]) => c.map((x, i) => (i < 3 ? x.padEnd(widths[i]) : x.padStart(widths[i]))).join('  ');
  return [line(head), line(widths.map((w) => '-'.repeat(w))), ...cells.map(line), ...vacuousNotes(rows)].join('\n');
}

/** `telepath run --json`: every row (arms, their further test sets and controls) with n, the paired differences and diagnostics; `runs` has one entry per arm × seed. */
export function resultsJson(experiment: string, results: ArmSummary[], rows: ArmRow[] = aggregate(results)): object {
  return {
    experiment,
    arms: rows.map((r) => ({
      arm: r.arm,
      method: r.method,
      seeds: r.seeds,
      accuracy: r.accuracy,
      stderr: r.stderr,
      spread: r.spread,
      n: r.n,
      paired: r.paired.map(({ baseline, diff, lo, hi }) => ({ baseline, diff, lo, hi })),
      ...(r.diagnostics ? { diagnostics: r.diagnostics } : {}),
      ...(r.vacuousControls ? { vacuousControls: r.vacuousControls } : {}),
    })),
    runs: results.map((r) => ({
      arm: r.arm,
      method: r.method,
      seed: r.seed,
      accuracy: r.accuracy,
      stderr: r.stderr,
      reasoningLength: r.reasoningLength,
      msPerExample: r.msPerExample,
      trainSeconds: r.trainSeconds,
      params: r.params,
      ...(r.validReasoning !== undefined ? { validReasoning: r.validReasoning } : {}),
    })),
  };
}
