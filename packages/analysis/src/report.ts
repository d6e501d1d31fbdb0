/**
 * Tables and heatmaps of a subspace analysis, and `analyzeRun`: read a run directory's
 * `latents.bin` (written by core's `writeLatentTrace`), analyse it, and write
 *   subspace.md          summary table + per-slot table (Markdown)
 *   subspace-slots.csv   per-slot table
 *   subspace.json        summary, per-slot rows, every matrix, timings
 *   cross-capture.{svg,png}, cka.{svg,png}   heatmaps (CKA only when slots share their examples)
 * into `<runDir>/analysis/` or `outDir`. The lab's `telepath analyze <run dir>` calls this.
 */
import { from, type ColumnTable } from 'arquero';
import { readLatentTrace, writeFileAtomic } from '@telepath/core';
import { join } from 'node:path';
import { analyzeTrace, type AnalysisOptions, type SubspaceAnalysis } from './analyze.js';
import { heatmapSpec, renderChart } from './chart.js';

export interface AnalyzeRunOptions extends Partial<AnalysisOptions> {
  /** where the files go; default `<runDir>/analysis` */
  outDir?: string;
  /** latent file inside the run directory; default `latents.bin` */
  latentsFile?: string;
  /** write SVG/PNG heatmaps; default true */
  charts?: boolean;
  /**
   * Slots with fewer vectors are left out (and named in `droppedSlots` and subspace.md): methods with
   * variable-length chains (CoLaR) fill their late slots from a few examples only. Default 10
   * (chosen: PCA and silhouettes of fewer vectors are noise); at least 2.
   */
  minSlotRows?: number;
}

/** Default of `minSlotRows`. */
export const MIN_SLOT_ROWS = 10;

export interface AnalyzeRunResult {
  analysis: SubspaceAnalysis;
  /** per-slot table */
  table: ColumnTable;
  /** summary as a two-column (metric, value) table */
  summaryTable: ColumnTable;
  /** absolute or runDir-relative paths of every file written */
  files: string[];
  /** slots left out for having fewer than `minSlotRows` vectors */
  droppedSlots: { name: string; rows: number }[];
}

export const LATENTS_FILE = 'latents.bin';

const SUMMARY_LABELS: Record<string, string> = {
  hOff: 'H_off (mean off-diagonal cross-capture)',
  hOffBaseline: 'H_off of unrelated slots (mean k / C)',
  silhouetteCosine: 'silhouette by slot, cosine',
  silhouetteEuclidean: 'silhouette by slot, Euclidean',
  ckaOff: 'mean off-diagonal linear CKA',
  affinityOff: 'mean off-diagonal subspace affinity (mean cos² θ)',
  firstAngleDeg: 'mean smallest principal angle (°, top-m components)',
  pooledPr: 'participation ratio, all slots pooled',
  meanK: 'mean PCA components k',
};

/** Per-slot statistics as an arquero table. */
export function slotTable(a: SubspaceAnalysis): ColumnTable {
  return from(a.slotStats);
}

/** The summary as an arquero table of (metric, value) rows. */
export function summaryTable(a: SubspaceAnalysis): ColumnTable {
  const s = a.summary;
  const rows: { metric: string; value: string }[] = [
    { metric: 'source', value: s.source },
    { metric: 'slots × width', value: `${s.slots} × ${s.width}` },
    { metric: 'vectors per slot', value: [...new Set(s.rows)].join(', ') },
    { metric: 'PCA variance threshold', value: String(s.varianceThreshold) },
  ];
  for (const [key, label] of Object.entries(SUMMARY_LABELS)) {
    const v = s[key as keyof typeof s] as number;
    rows.push({ metric: label, value: Number.isFinite(v) ? v.toFixed(4) : 'n/a' });
  }
  rows.push({
    metric: 'Euclidean silhouette vectors',
    value: `${s.silhouetteEuclideanUsed}${s.silhouetteEuclideanExact ? ' (all)' : ' (seeded sample)'}`,
  });
  return from(rows);
}

/** Markdown for the summary and per-slot tables. */
export function analysisMarkdown(a: SubspaceAnalysis): string {
  return [
    `## Subspace analysis (${a.summary.source})`,
    '',
    summaryTable(a).toMarkdown().trimEnd(),
    '',
    '### Per slot',
    '',
    slotTable(a).toMarkdown({ maxdigits: 3 }).trimEnd(),
    '',
  ].join('\n');
}

/** Cross-capture and (when available) CKA heatmaps, rendered to SVG and PNG. */
export async function analysisCharts(a: SubspaceAnalysis): Promise<Record<string, { svg: string; png: Buffer }>> {
  const names = a.slotNames;
  const out: Record<string, { svg: string; png: Buffer }> = {};
  const subtitle = `${a.summary.source}: ${a.summary.slots} slots × ${a.summary.width}, PCA at ${a.summary.varianceThreshold} of variance`;
  out['cross-capture'] = await renderChart(
    heatmapSpec(a.crossCapture, names, names, {
      title: `Cross-capture C_ij, H_off = ${a.summary.hOff.toFixed(3)}`,
      subtitle,
      rowTitle: 'subspace of slot i',
      colTitle: 'variance of slot j',
    }),
  );
  if (a.cka)
    out.cka = await renderChart(
      heatmapSpec(a.cka, names, names, {
        title: `Linear CKA, mean off-diagonal ${a.summary.ckaOff.toFixed(3)}`,
        subtitle,
      }),
    );
  return out;
}

/** Analyse `<runDir>/latents.bin` and write the tables and heatmaps (see the file header). */
export async function analyzeRun(runDir: string, o: AnalyzeRunOptions = {}): Promise<AnalyzeRunResult> {
  const full = await readLatentTrace(join(runDir, o.latentsFile ?? LATENTS_FILE));
  const minRows = Math.max(2, o.minSlotRows ?? MIN_SLOT_ROWS);
  const droppedSlots = full.slots.filter((sl) => sl.rows < minRows).map((sl) => ({ name: sl.name, rows: sl.rows }));
  const trace = { ...full, slots: full.slots.filter((sl) => sl.rows >= minRows) };
  if (trace.slots.length === 0)
    throw new Error(
      `${runDir}: every latent slot has fewer than ${minRows} vectors (${droppedSlots.map((d) => `${d.name}: ${d.rows}`).join(', ')})`,
    );
  const analysis = await analyzeTrace(trace, o);
  const outDir = o.outDir ?? join(runDir, 'analysis');
  const files: string[] = [];
  const write = async (name: string, data: string | Uint8Array) => {
    const p = join(outDir, name);
    await writeFileAtomic(p, data);
    files.push(p);
  };
  const table = slotTable(analysis);
  const dropNote = droppedSlots.length
    ? `\nLeft out (fewer than ${minRows} vectors): ${droppedSlots.map((d) => `${d.name} (${d.rows})`).join(', ')}.\n`
    : '';
  await write('subspace.md', analysisMarkdown(analysis) + dropNote);
  await write('subspace-slots.csv', table.toCSV());
  await write(
    'subspace.json',
    `${JSON.stringify(analysis, (_, v) => (typeof v === 'number' && !Number.isFinite(v) ? null : v), 1)}\n`,
  );
  if (o.charts ?? true) {
    for (const [name, chart] of Object.entries(await analysisCharts(analysis))) {
      await write(`${name}.svg`, chart.svg);
      await write(`${name}.png`, chart.png);
    }
  }
  return { analysis, table, summaryTable: summaryTable(analysis), files, droppedSlots };
}
