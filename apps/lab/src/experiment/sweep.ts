/**
 * Sweeps: an experiment config with `"sweep": { "key": "data.n", "values": [3, 4, 5, 6] }` stands
 * for one experiment per value — the value set at `key` (the --set syntax), the name suffixed with
 * the key's last segment and the value (`countdown-branching-n4`) so each keeps its own records.
 * `"sweep": { "key": "data.n", "experiments": ["latent-countdown3", "latent-countdown4"] }` sweeps
 * whole experiment files of the same folder instead, each value read from its file at `key` — for
 * values whose recipes differ in more than one key. `telepath run` runs them in turn, then writes
 * one table and one chart of every arm's accuracy against the value, and each arm's paired
 * difference from the experiments' `compareTo` arms, under <runs>/<name>/sweep/.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { applySetOverrides, writeFileAtomic } from '@telepath/core';
import * as aq from 'arquero';
import type { TopLevelSpec } from '@telepath/analysis';
import type { ExperimentConfig } from './experiment.js';
import { experimentFromRaw, loadExperiment, splitProfile } from './load-experiment.js';
import type { ArmSummary } from '../running/arm-summary.js';
import { compareArms } from '../reports/report.js';
import { pairedText, type ArmRow } from '../reports/table.js';

export interface Sweep {
  name: string;
  key: string;
  /** The key's last segment, the column title and name suffix (`n` for data.n). */
  label: string;
  values: (number | string)[];
  experiments: ExperimentConfig[];
}

const VALUE = /^[a-z0-9._-]+$/i;

/** The sweep in `file`, or null when the config is a plain experiment. */
export async function loadSweep(file: string, sets: string[] = []): Promise<Sweep | null> {
  let raw: Record<string, unknown>;
  try {
    raw = JSON.parse(await fs.readFile(file, 'utf8')) as Record<string, unknown>;
  } catch (e) {
    throw new Error(`${file}: ${(e as Error).message}`);
  }
  if (typeof raw !== 'object' || raw === null || raw.sweep === undefined) return null;
  const where = path.basename(file);
  // `--set sweep.values=[3,6]` changes the sweep itself; every other --set applies to each experiment.
  const ownSets = sets.filter((s) => /^sweep[.=]/.test(s));
  const { sweep } = applySetOverrides({ sweep: raw.sweep }, ownSets) as { sweep: unknown };
  const { key, values, files } = checkSweep(sweep, where);
  const { profile } = splitProfile(sets);
  const name = `${String(raw.name)}${profile ? `-${profile}` : ''}`;
  const label = key.split('.').pop()!;
  const eachSets = sets.filter((s) => !ownSets.includes(s));
  if (files) return { name, key, label, ...(await sweepOfFiles(raw, file, key, files, eachSets)) };
  const { sweep: _sweep, ...rest } = raw;
  const experiments: ExperimentConfig[] = [];
  for (const v of values) {
    const one = applySetOverrides({ ...rest, name: `${String(rest.name)}-${label}${v}` }, [
      `${key}=${JSON.stringify(v)}`,
    ]);
    experiments.push(await experimentFromRaw(one, file, eachSets));
  }
  return { name, key, label, values, experiments };
}

/** A sweep of experiment files: each loaded with `sets`, its value read at `key`. */
async function sweepOfFiles(
  raw: Record<string, unknown>,
  file: string,
  key: string,
  names: string[],
  sets: string[],
): Promise<{ values: (number | string)[]; experiments: ExperimentConfig[] }> {
  const where = path.basename(file);
  const own = Object.keys(raw).find((k) => !['name', 'description', 'why', 'sweep'].includes(k));
  if (own)
    throw new Error(
      `${where}: a sweep of experiment files takes every setting from those files; remove "${own}" (only name, description, why and sweep belong here)`,
    );
  const experiments: ExperimentConfig[] = [];
  for (const n of names) {
    const f = path.join(path.dirname(file), `${n}.json`);
    if (!(await fs.stat(f).catch(() => null)))
      throw new Error(`${where}: sweep.experiments names ${n}, but ${f} does not exist`);
    experiments.push(await loadExperiment(f, sets));
  }
  const values = experiments.map((e, i) => {
    const v = key.split('.').reduce<unknown>((o, k) => (o as Record<string, unknown> | undefined)?.[k], e);
    if (!(typeof v === 'number' || typeof v === 'string') || !VALUE.test(String(v)))
      throw new Error(
        `${where}: sweep.key ${key} is ${JSON.stringify(v)} in ${names[i]}.json; expected a number or a short name`,
      );
    return v;
  });
  const twice = values.find((v, i) => values.indexOf(v) !== i);
  if (twice !== undefined)
    throw new Error(`${where}: two of sweep.experiments have ${key} = ${twice}; each value once`);
  return { values, experiments };
}

function checkSweep(s: unknown, where: string): { key: string; values: (number | string)[]; files: string[] | null } {
  const bad = (why: string) =>
    new Error(
      `${where}: sweep: ${why}. Expected { "key": "<config path, e.g. data.n>", "values": [3, 4, 5] } or { "key": "data.n", "experiments": ["<experiment file in this folder, without .json>", ...] }`,
    );
  if (typeof s !== 'object' || s === null || Array.isArray(s)) throw bad('not an object');
  const extra = Object.keys(s).filter((k) => !['key', 'values', 'experiments'].includes(k));
  if (extra.length) throw bad(`unknown key "${extra[0]}"`);
  const { key, values, experiments } = s as { key?: unknown; values?: unknown; experiments?: unknown };
  if (typeof key !== 'string' || !/^[a-z][\w.]*$/i.test(key) || key.startsWith('arms.') || key === 'name')
    throw bad(`"key" must be a config path outside name and arms, got ${JSON.stringify(key)}`);
  if (experiments !== undefined) {
    if (values !== undefined) throw bad('give "values" or "experiments", not both');
    if (!Array.isArray(experiments) || experiments.length < 2) throw bad('"experiments" must list at least two files');
    for (const e of experiments)
      if (typeof e !== 'string' || !VALUE.test(e)) throw bad(`${JSON.stringify(e)} is not an experiment name`);
    return { key, values: [], files: experiments as string[] };
  }
  if (!Array.isArray(values) || values.length < 2) throw bad('"values" must list at least two values');
  for (const v of values)
    if (!(typeof v === 'number' || typeof v === 'string') || !VALUE.test(String(v)))
      throw bad(`value ${JSON.stringify(v)} is not a number or a short name`);
  if (new Set(values.map(String)).size !== values.length) throw bad('duplicate values');
  return { key, values: values as (number | string)[], files: null };
}

/** Arms (main rows and control rows) × values: "accuracy ± s.e." per cell, '–' where an arm has no result. */
export function sweepRows(sweep: Sweep, rowsPerValue: ArmRow[][]): Record<string, string>[] {
  const arms = [...new Set(rowsPerValue.flatMap((rows) => rows.map((r) => r.arm)))];
  return arms.map((arm) => ({
    arm,
    ...Object.fromEntries(
      sweep.values.map((v, i) => {
        const r = rowsPerValue[i]?.find((x) => x.arm === arm);
        return [`${sweep.label} = ${v}`, r ? `${(100 * r.accuracy).toFixed(1)} ± ${(100 * r.stderr).toFixed(1)}` : '–'];
      }),
    ),
  }));
}

/** Main arms × values: each arm's paired difference from `baseline` at that value ('–' where none). */
export function sweepPairedRows(sweep: Sweep, rowsPerValue: ArmRow[][], baseline: string): Record<string, string>[] {
  const arms = [...new Set(rowsPerValue.flatMap((rows) => rows.filter((r) => !r.controlOf).map((r) => r.arm)))];
  return arms
    .filter((arm) => arm !== baseline && !arm.startsWith(`${baseline} [`))
    .map((arm) => ({
      arm,
      ...Object.fromEntries(
        sweep.values.map((v, i) => {
          const r = rowsPerValue[i]?.find((x) => x.arm === arm);
          return [`${sweep.label} = ${v}`, pairedText(r?.paired.find((p) => p.baseline === baseline))];
        }),
      ),
    }));
}

/** Vega-Lite: accuracy against the swept value, one line per arm (controls left out), ± s.e. bars. */
export function sweepSpec(sweep: Sweep, rowsPerValue: ArmRow[][]): TopLevelSpec {
  const numeric = sweep.values.every((v) => typeof v === 'number');
  const values = rowsPerValue.flatMap((rows, i) =>
    rows
      .filter((r) => !r.arm.includes(' ['))
      .map((r) => ({
        arm: r.arm,
        x: sweep.values[i],
        accuracy: 100 * r.accuracy,
        lo: 100 * Math.max(0, r.accuracy - r.stderr),
        hi: 100 * Math.min(1, r.accuracy + r.stderr),
      })),
  );
  const x = {
    field: 'x',
    type: numeric ? ('quantitative' as const) : ('ordinal' as const),
    title: sweep.key,
    ...(numeric
      ? { scale: { zero: false }, axis: { values: sweep.values as number[], format: 'd' } }
      : { sort: sweep.values }),
  };
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v5.json',
    title: `Accuracy against ${sweep.key} (± binomial standard error)`,
    width: 420,
    height: 260,
    data: { values },
    encoding: { x, color: { field: 'arm', type: 'nominal', legend: { labelLimit: 300 } } },
    layer: [
      {
        mark: { type: 'line', point: true },
        encoding: { y: { field: 'accuracy', type: 'quantitative', title: 'accuracy %', scale: { domain: [0, 100] } } },
      },
      { mark: { type: 'rule' }, encoding: { y: { field: 'lo', type: 'quantitative' }, y2: { field: 'hi' } } },
    ],
  };
}

/**
 * <runs>/<name>/sweep/: sweep.md, sweep.csv and accuracy-vs-<label>.svg/.png, from each value's
 * results (in the sweep's value order). Returns the files and sweep.md's text.
 */
export async function writeSweepReport(
  sweep: Sweep,
  results: ArmSummary[][],
  runsDir: string,
): Promise<{ files: string[]; markdown: string }> {
  const out = path.join(runsDir, sweep.name, 'sweep');
  const rowsPerValue = await Promise.all(
    results.map((r, i) => compareArms(r, runsDir, sweep.experiments[i]?.compareTo ?? [])),
  );
  const table = aq.from(sweepRows(sweep, rowsPerValue));
  const seeds = results.map((rs) => [...new Set(rs.map((r) => r.seed))].join(', '));
  const note = `Accuracy % (mean over seeds ± the bootstrap spread of that mean, questions and seeds resampled; the binomial error where no per-question samples are recorded) of every arm of ${sweep.name} against ${sweep.key}; seeds per value: ${seeds.map((s, i) => `${sweep.values[i]}: ${s || '–'}`).join('; ')}.`;
  const bases = [...new Set(sweep.experiments.flatMap((e) => e.compareTo))];
  const paired = bases.map(
    (b) =>
      `Δ ${b} (points, paired: the arm minus ${b} on the same questions and seeds, bootstrap 95 %; '–' where there is no ${b} or no per-question record):\n\n${aq.from(sweepPairedRows(sweep, rowsPerValue, b)).toMarkdown()}\n`,
  );
  const markdown = [`${note}\n\n${table.toMarkdown()}\n`, ...paired].join('\n');
  await writeFileAtomic(path.join(out, 'sweep.md'), markdown);
  await writeFileAtomic(path.join(out, 'sweep.csv'), table.toCSV());
  const { renderChart } = await import('@telepath/analysis'); // heavy: loaded only for reports
  const { svg, png } = await renderChart(sweepSpec(sweep, rowsPerValue));
  const chart = `accuracy-vs-${sweep.label}`;
  await fs.mkdir(out, { recursive: true });
  await writeFileAtomic(path.join(out, `${chart}.svg`), svg);
  await writeFileAtomic(path.join(out, `${chart}.png`), png);
  return { files: ['sweep.md', 'sweep.csv', `${chart}.svg`, `${chart}.png`].map((f) => path.join(out, f)), markdown };
}
