/**
 * The subspace analysis of a whole experiment: every latent arm × seed with a latents.bin gets its
 * own analysis/ (as `telepath analyze <run dir>` writes it), and one table gives each arm's
 * statistics as the mean ± sd over its seeds: <experiment dir>/analysis/subspace-arms.md and .csv.
 * A reused arm's latents are read from the run of the experiment that trained it.
 */
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import * as aq from 'arquero';
import { writeFileAtomic } from '@telepath/core';
import type { SubspaceSummary } from '@telepath/analysis';
import { readSummaries } from './report.js';
import type { ArmSummary } from '../running/arm-summary.js';
import { runDirOf } from '../running/run-arm.js';

export interface ExperimentAnalysisOptions {
  /** PCA explained-variance threshold per slot. */
  varianceThreshold: number;
  cka: boolean;
  /** Called after each run is analysed (progress). */
  onRun?: (runDir: string) => void;
}

/** One latent arm's statistics over its analysed seeds. */
export interface ArmAnalysis {
  arm: string;
  seeds: number[];
  /** Slots kept per seed (slots with too few vectors are left out, as in a single run's analysis). */
  slots: number[];
  hOff: number[];
  hOffBaseline: number[];
  silhouetteCosine: number[];
  /** NaN where CKA was not computable (slots of unequal size) or not asked for. */
  ckaOff: number[];
}

export interface ExperimentAnalysis {
  arms: ArmAnalysis[];
  /** Latent arm × seed runs that could not be analysed, and why. */
  skipped: { run: string; reason: string }[];
  files: string[];
  markdown: string;
}

/** The run directory holding an arm × seed's latents: its own, or the trained arm's when reused ("<experiment>/<arm>"). */
function latentRunDir(experimentDir: string, s: ArmSummary): string {
  const runsDir = path.dirname(experimentDir);
  const [experiment, arm] = s.reusedFrom ? s.reusedFrom.split('/') : [path.basename(experimentDir), s.arm];
  return runDirOf(runsDir, experiment, arm, s.seed);
}

export async function analyzeExperiment(
  experimentDir: string,
  o: ExperimentAnalysisOptions,
): Promise<ExperimentAnalysis> {
  const summaries = (await readSummaries(experimentDir)).filter((s) => s.reasoningKind === 'latents');
  if (summaries.length === 0)
    throw new Error(
      `${experimentDir}: not a latent run (no latents.bin) and not an experiment with a finished latent arm (no <arm>/s<seed>/summary.json with reasoningKind "latents")`,
    );
  const { analyzeRun } = await import('@telepath/analysis'); // heavy: loaded only when analysing
  const byArm = new Map<string, ArmAnalysis>();
  const skipped: ExperimentAnalysis['skipped'] = [];
  for (const s of summaries) {
    const runDir = latentRunDir(experimentDir, s);
    if (!existsSync(path.join(runDir, 'latents.bin'))) {
      skipped.push({ run: runDir, reason: 'no latents.bin' });
      continue;
    }
    let summary: SubspaceSummary;
    try {
      summary = (await analyzeRun(runDir, { pca: { varianceThreshold: o.varianceThreshold }, cka: o.cka })).analysis
        .summary;
    } catch (e) {
      skipped.push({ run: runDir, reason: (e as Error).message });
      continue;
    }
    o.onRun?.(runDir);
    const a = byArm.get(s.arm) ?? {
      arm: s.arm,
      seeds: [],
      slots: [],
      hOff: [],
      hOffBaseline: [],
      silhouetteCosine: [],
      ckaOff: [],
    };
    a.seeds.push(s.seed);
    a.slots.push(summary.slots);
    a.hOff.push(summary.hOff);
    a.hOffBaseline.push(summary.hOffBaseline);
    a.silhouetteCosine.push(summary.silhouetteCosine);
    a.ckaOff.push(summary.ckaOff);
    byArm.set(s.arm, a);
  }
  const arms = [...byArm.values()];
  const perSeed = aq.from(arms.flatMap(csvRow));
  const table = aq.from(overSeeds(perSeed, 'arm', Object.keys(STATS)).map((spread, i) => displayRow(arms[i], spread)));
  const note = `Subspace analysis of every latent arm of ${path.basename(experimentDir)}: each statistic is the mean ± sd over the seeds analysed (PCA at ${o.varianceThreshold} of each slot's variance); per-run tables and heatmaps are in each run's analysis/.`;
  const shown = (run: string) => path.relative(path.dirname(path.dirname(experimentDir)), run); // runs/<experiment>/<arm>/s<seed>
  const skippedNote = skipped.length
    ? `\n\nNot analysed:\n${skipped.map((k) => `- ${shown(k.run)}: ${k.reason}`).join('\n')}`
    : '';
  const markdown = `${note}\n\n${arms.length ? table.toMarkdown() : '(no run could be analysed)\n'}${skippedNote}\n`;
  const out = path.join(experimentDir, 'analysis');
  const files = [path.join(out, 'subspace-arms.md'), path.join(out, 'subspace-arms.csv')];
  await writeFileAtomic(files[0], markdown);
  await writeFileAtomic(files[1], perSeed.toCSV());
  return { arms, skipped, files, markdown };
}

/** The statistics of a run that the experiment's table gives over seeds, and their headers there. */
const STATS = {
  hOff: 'H_off',
  hOffBaseline: 'H_off of unrelated slots',
  silhouetteCosine: 'silhouette by slot (cosine)',
  ckaOff: 'mean off-diagonal CKA',
} as const;

/** A statistic over one group's seeds: mean and sample sd (n − 1) of its finite values, how many there were, of how many seeds. */
interface Spread {
  mean: number;
  sd: number;
  finite: number;
  seeds: number;
}

/**
 * Each group's Spread of each column, in the groups' first-seen order (arquero groupby/rollup). The
 * mean is the finite values' sum in seed order over their count, as a plain loop takes it; the sd
 * is arquero's stdev (a running update, equal to the two-pass formula up to rounding in the last bits).
 */
function overSeeds(perSeed: aq.ColumnTable, by: string, columns: string[]): Record<string, Spread>[] {
  if (perSeed.numRows() === 0) return [];
  const col = (c: string) => `d['${c}']`;
  const finite = perSeed.derive(
    Object.fromEntries(columns.map((c) => [c, `d => op.is_finite(${col(c)}) ? ${col(c)} : NaN`])),
  );
  const rolled = finite
    .groupby(by)
    .rollup({
      seeds: aq.op.count(),
      ...Object.fromEntries(
        columns.flatMap((c) => [
          [`${c}:mean`, `d => op.sum(${col(c)}) / op.valid(${col(c)})`],
          [`${c}:sd`, `d => op.stdev(${col(c)})`],
          [`${c}:n`, `d => op.valid(${col(c)})`],
        ]),
      ),
    })
    .objects() as Record<string, number>[];
  return rolled.map((r) =>
    Object.fromEntries(
      columns.map((c) => [
        c,
        { mean: r[`${c}:mean`], sd: r[`${c}:sd`] ?? Number.NaN, finite: r[`${c}:n`], seeds: r.seeds },
      ]),
    ),
  );
}

/** "mean ± sd"; "(k of n)" when some seeds had no finite value; '–' when none had one. */
function spreadText(s: Spread, digits: number): string {
  if (s.finite === 0) return '–';
  const text = Number.isFinite(s.sd) ? `${s.mean.toFixed(digits)} ± ${s.sd.toFixed(digits)}` : s.mean.toFixed(digits);
  return s.finite < s.seeds ? `${text} (${s.finite} of ${s.seeds})` : text;
}

/** "mean ± sd" of the finite values of one list; "(k of n)" when some were not; '–' when none was. */
export function meanSd(xs: number[], digits = 2): string {
  const [spread] = overSeeds(aq.table({ group: xs.map(() => 0), x: xs }), 'group', ['x']);
  return spread ? spreadText(spread.x, digits) : '–';
}

function displayRow(a: ArmAnalysis, spread: Record<string, Spread>) {
  const lo = Math.min(...a.slots);
  const hi = Math.max(...a.slots);
  return {
    arm: a.arm,
    seeds: a.seeds.join(', '),
    'slots analysed': lo === hi ? String(lo) : `${lo}–${hi}`,
    ...Object.fromEntries(Object.entries(STATS).map(([stat, header]) => [header, spreadText(spread[stat], 2)])),
  };
}

function csvRow(a: ArmAnalysis) {
  return a.seeds.map((seed, i) => ({
    arm: a.arm,
    seed,
    slots: a.slots[i],
    hOff: a.hOff[i],
    hOffBaseline: a.hOffBaseline[i],
    silhouetteCosine: a.silhouetteCosine[i],
    ckaOff: a.ckaOff[i],
  }));
}
