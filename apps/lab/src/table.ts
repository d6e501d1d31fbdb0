/**
 * The comparison table: one row per arm (mean over seeds) with the binomial standard error of the
 * mean, reasoning length, the share of sound written steps (where the task checks them), decode time per example, training time and parameters; plus the
 * per-seed rows for --json. Built with arquero; rendered as text, markdown and CSV.
 */
import * as aq from 'arquero';
import type { ArmSummary } from './run-arm.js';

export interface ArmRow {
  arm: string;
  method: string;
  /** The reference the arm's weights start from (root of its initFrom chain; '' in records that predate it). */
  startsFrom: string;
  seeds: number;
  accuracy: number;
  stderr: number;
  reasoningLength: number;
  reasoningKind: string;
  /** Share of answers with sound written reasoning (NaN when the arm's reasoning is not checked). */
  validReasoning: number;
  msPerExample: number;
  trainSeconds: number;
  params: number;
  n: number;
}

/** Mean over seeds; stderr = sqrt(Σ se_i²) / k (the binomial error of the seed mean). */
export function aggregate(results: ArmSummary[]): ArmRow[] {
  const order = [...new Set(results.map((r) => r.arm))];
  return order.flatMap((arm) => {
    const rs = results.filter((r) => r.arm === arm);
    const k = rs.length;
    const mean = (f: (r: ArmSummary) => number) => rs.reduce((a, r) => a + f(r), 0) / k;
    const main: ArmRow = {
      arm,
      method: rs[0].method,
      startsFrom: rs[0].startsFrom ?? '',
      seeds: k,
      accuracy: mean((r) => r.accuracy),
      stderr: Math.sqrt(rs.reduce((a, r) => a + r.stderr ** 2, 0)) / k,
      reasoningLength: mean((r) => r.reasoningLength),
      reasoningKind: rs[0].reasoningKind,
      validReasoning: rs.every((r) => r.validReasoning !== undefined) ? mean((r) => r.validReasoning!) : Number.NaN,
      msPerExample: mean((r) => r.msPerExample),
      trainSeconds: mean((r) => r.trainSeconds),
      params: rs[0].params,
      n: rs[0].total,
    };
    // One extra row per control: the same arm with its latents zeroed / shuffled / randomised.
    const controls = Object.keys(rs[0].controls ?? {});
    return [
      main,
      ...controls.map((c) => {
        const cs = rs.map((r) => r.controls?.[c]).filter((x): x is NonNullable<typeof x> => x !== undefined);
        return { ...main, arm: `${arm} [${c}]`, validReasoning: Number.NaN, seeds: cs.length, accuracy: cs.reduce((a, x) => a + x.accuracy, 0) / cs.length, stderr: Math.sqrt(cs.reduce((a, x) => a + x.stderr ** 2, 0)) / cs.length, msPerExample: Number.NaN, trainSeconds: Number.NaN };
      }),
    ];
  });
}

/** A number for display; '–' where there is none (control rows have no timings of their own). */
export function fixed(x: number, digits: number): string {
  return Number.isFinite(x) ? x.toFixed(digits) : '–';
}

function displayTable(rows: ArmRow[]) {
  const checked = rows.some((r) => Number.isFinite(r.validReasoning));
  return aq.from(
    rows.map((r) => ({
      arm: r.arm,
      method: r.method,
      'starts from': r.startsFrom || '–',
      seeds: r.seeds,
      'accuracy %': `${(100 * r.accuracy).toFixed(1)} ± ${(100 * r.stderr).toFixed(1)}`,
      'reasoning length': `${r.reasoningLength.toFixed(1)} ${r.reasoningKind === 'latents' ? 'latents' : r.reasoningKind === 'tokens' ? 'tokens' : ''}`.trim(),
      ...(checked ? { 'sound steps %': Number.isFinite(r.validReasoning) ? (100 * r.validReasoning).toFixed(1) : '–' } : {}),
      'ms / example': fixed(r.msPerExample, 1),
      'train s': fixed(r.trainSeconds, 0),
      params: r.params.toLocaleString('en'),
      n: r.n,
    })),
  );
}

export function tableMarkdown(rows: ArmRow[]): string {
  return displayTable(rows).toMarkdown();
}

export function tableCsv(rows: ArmRow[]): string {
  return aq.from(rows).toCSV();
}

/** Fixed-width text for the terminal. */
export function tableText(rows: ArmRow[]): string {
  const objs = displayTable(rows).objects() as Record<string, unknown>[];
  if (objs.length === 0) return '(no finished arms)';
  const head = Object.keys(objs[0]);
  const cells = objs.map((o) => head.map((h) => String(o[h])));
  const widths = head.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i].length)));
  const line = (c: string[]) => c.map((x, i) => (i < 3 ? x.padEnd(widths[i]) : x.padStart(widths[i]))).join('  ');
  return [line(head), line(widths.map((w) => '-'.repeat(w))), ...cells.map(line)].join('\n');
}

export function resultsJson(experiment: string, results: ArmSummary[]): object {
  return {
    experiment,
    arms: results.map((r) => ({ arm: r.arm, method: r.method, seed: r.seed, accuracy: r.accuracy, stderr: r.stderr, reasoningLength: r.reasoningLength, msPerExample: r.msPerExample, trainSeconds: r.trainSeconds, params: r.params, ...(r.validReasoning !== undefined ? { validReasoning: r.validReasoning } : {}) })),
  };
}
