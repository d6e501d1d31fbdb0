/**
 * The experiment's report, from run records only (summary.json of each arm × seed, samples*.jsonl
 * for the bootstrap, metrics.jsonl for the curves): markdown and CSV tables and one self-contained
 * HTML page (`telepath report`, commands/report.ts, and the end of `telepath run`). Records written
 * before the paired intervals, diagnostics and curves existed still render: each column is filled
 * from what they hold (per-question samples give the bootstrap, chain verdicts the chain breakdown)
 * and shows – otherwise.
 */
import { existsSync, promises as fs } from 'node:fs';
import * as path from 'node:path';
import { readJsonFile, writeFileAtomic } from '@telepath/core';
import { readCurves } from './curves.js';
import { buildHtml, type ShownSample } from './html.js';
import { readOutcomes, samplesDir } from './outcomes.js';
import type { ArmSummary } from '../running/arm-summary.js';
import { aggregate, SPREAD_METHOD, tableCsv, tableMarkdown, type ArmRow } from './table.js';
import { diagnosticsMarkdown } from './diagnostics-table.js';

/** Where `telepath run` records the experiment's baselines for later reports. */
export const COMPARISON_FILE = 'experiment.json';

/** The comparison rows of finished runs, with the bootstrap and paired intervals their samples allow. */
export async function compareArms(results: ArmSummary[], runsDir: string, compareTo: string[]): Promise<ArmRow[]> {
  return aggregate(results, { outcomes: await readOutcomes(runsDir, results), compareTo });
}

/** Every finished arm × seed under an experiment directory, in arm order then seed order. */
export async function readSummaries(dir: string): Promise<ArmSummary[]> {
  const out: ArmSummary[] = [];
  let arms: string[];
  try {
    arms = (await fs.readdir(dir, { withFileTypes: true }))
      .filter((d) => d.isDirectory() && d.name !== 'report')
      .map((d) => d.name);
  } catch (e) {
    throw new Error(`cannot read experiment directory ${dir}: ${(e as Error).message}`);
  }
  for (const arm of arms.sort()) {
    const seeds = (await fs.readdir(path.join(dir, arm)))
      .filter((s) => /^s-?\d+$/.test(s))
      .sort((a, b) => Number(a.slice(1)) - Number(b.slice(1)));
    for (const s of seeds) {
      const f = path.join(dir, arm, s, 'summary.json');
      if (!existsSync(f)) continue;
      out.push(await readJsonFile<ArmSummary>(f));
    }
  }
  // The experiment's arm order, then seeds.
  return out.sort((a, b) => (a.armIndex ?? 0) - (b.armIndex ?? 0) || a.seed - b.seed);
}

/**
 * Arm × seed records an experiment directory lacks: for each arm, every seed that any arm has a
 * directory for but this arm has no summary.json for ("cot s3 (…/cot/s3/summary.json: not finished)").
 */
export async function missingSeeds(dir: string): Promise<string[]> {
  const seedDirs = new Map<string, string[]>();
  for (const d of await fs.readdir(dir, { withFileTypes: true }).catch(() => [])) {
    if (!d.isDirectory() || d.name === 'report') continue;
    const seeds = (await fs.readdir(path.join(dir, d.name))).filter((s) => /^s-?\d+$/.test(s));
    if (seeds.length > 0) seedDirs.set(d.name, seeds);
  }
  const all = [...new Set([...seedDirs.values()].flat())].sort((a, b) => Number(a.slice(1)) - Number(b.slice(1)));
  const out: string[] = [];
  for (const [arm, seeds] of [...seedDirs].sort(([a], [b]) => a.localeCompare(b))) {
    for (const s of all) {
      const f = path.join(dir, arm, s, 'summary.json');
      if (!existsSync(f))
        out.push(`${arm} ${s} (${seeds.includes(s) ? `${f}: not finished` : `no ${path.join(dir, arm, s)}`})`);
    }
  }
  return out;
}

/** A few correct and incorrect samples of each arm's first seed (the first `per` of each in test order). */
async function shownSamples(runsDir: string, results: ArmSummary[], per = 2): Promise<ShownSample[]> {
  const out: ShownSample[] = [];
  for (const arm of [...new Set(results.map((r) => r.arm))]) {
    const r = results.find((x) => x.arm === arm)!;
    const file = path.join(samplesDir(runsDir, r), 'samples.jsonl');
    if (!existsSync(file)) continue;
    const lines = (await fs.readFile(file, 'utf8')).split('\n').filter((l) => l.trim() !== '');
    const samples = lines.map((l) => JSON.parse(l) as Omit<ShownSample, 'arm' | 'seed'>);
    for (const correct of [true, false])
      out.push(
        ...samples
          .filter((s) => s.correct === correct)
          .slice(0, per)
          .map((s) => ({
            arm,
            seed: r.seed,
            correct,
            question: s.question,
            gold: s.gold,
            prediction: s.prediction,
            text: s.text,
          })),
      );
  }
  return out;
}

export interface ReportOptions {
  /** The runs directory holding the records (samples, metrics); without it the report uses the summaries only. */
  runsDir?: string;
  compareTo?: string[];
}

export async function writeReport(results: ArmSummary[], out: string, o: ReportOptions = {}): Promise<string[]> {
  const rows = o.runsDir ? await compareArms(results, o.runsDir, o.compareTo ?? []) : aggregate(results);
  const experiment = results[0].experiment;
  const diagnostics = diagnosticsMarkdown(rows);
  await writeFileAtomic(
    path.join(out, 'table.md'),
    `${tableMarkdown(rows)}\n\n${SPREAD_METHOD}\n${diagnostics ? `\nDiagnostics (% of checked chains by class; answers agreeing with their chain; generations cut off by the token cap):\n\n${diagnostics}\n` : ''}`,
  );
  await writeFileAtomic(path.join(out, 'table.csv'), tableCsv(rows));
  const extras = o.runsDir
    ? { curves: await readCurves(o.runsDir, results), samples: await shownSamples(o.runsDir, results) }
    : {};
  const html = await buildHtml(experiment, rows, results, out, extras);
  await writeFileAtomic(path.join(out, 'index.html'), html.page);
  return ['table.md', 'table.csv', ...html.files, 'index.html'].map((f) => path.join(out, f));
}
