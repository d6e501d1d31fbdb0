/**
 * `telepath analyze <run dir | experiment>`: the subspace analysis (@telepath/analysis) of the
 * latents a latent arm stored in its run record (latents.bin): cross-capture and H_off,
 * silhouette, principal angles, CKA, participation ratio; tables and heatmaps (SVG, PNG) into
 * <run dir>/analysis. Given an experiment, every latent arm × seed, and one table over the arms.
 */
import { existsSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { describeBackend, initBackend, type BackendCandidate } from '@telepath/core';
import { analyzeExperiment } from '../reports/analyze-experiment.js';
import { printHelp, usageError } from './command-args.js';

const HELP = `Usage: telepath analyze <run dir | experiment name | experiment dir> [--threshold 0.9] [--no-cka] [--out DIR] [--runs DIR] [--backend NAME]

A run dir (<runs>/<experiment>/<arm>/s<seed>): reads its latents.bin (written for latent arms) and writes
subspace.md, subspace-slots.csv, subspace.json, cross-capture.svg/.png and cka.svg/.png into --out
(default <run dir>/analysis).
An experiment (a name under --runs, default runs, or its directory): does that for every finished latent
arm × seed (a reused arm's latents are read from the experiment that trained it), then writes each arm's
statistics, mean ± sd over seeds, to <runs>/<experiment>/analysis/subspace-arms.md and .csv.
  --threshold X   PCA explained-variance threshold per slot (default 0.9)
  --no-cka        skip the CKA matrix (the costliest part)`;

export async function analyzeCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      threshold: { type: 'string', default: '0.9' },
      'no-cka': { type: 'boolean', default: false },
      out: { type: 'string' },
      runs: { type: 'string', default: 'runs' },
      backend: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) return printHelp(HELP);
  if (positionals.length !== 1) return usageError('analyze', 'expected one run directory or experiment', HELP);
  const threshold = Number(values.threshold);
  if (!(threshold > 0 && threshold <= 1)) throw new Error(`--threshold must be in (0, 1], got ${values.threshold}`);
  const target = positionals[0];
  const isDir = (p: string) => existsSync(p) && statSync(p).isDirectory();
  const dir = path.resolve(isDir(target) ? target : path.join(values.runs!, target));
  if (!isDir(dir))
    throw new Error(`${target}: neither a run directory nor an experiment under ${path.resolve(values.runs!)}`);
  const isRun = existsSync(path.join(dir, 'latents.bin')) || existsSync(path.join(dir, 'summary.json'));
  if (isRun && !existsSync(path.join(dir, 'latents.bin')))
    throw new Error(
      `${dir} has no latents.bin: only latent arms (soft-embedding, coprocessor, colar, thought-comm) store latents`,
    );
  if (!isRun && values.out)
    throw new Error("--out applies to one run directory; an experiment's table goes to <runs>/<experiment>/analysis");
  const info = await initBackend((values.backend as BackendCandidate | undefined) ?? ['wasm', 'cpu'], { quiet: true });
  console.error(describeBackend(info));
  if (!isRun) {
    const res = await analyzeExperiment(dir, {
      varianceThreshold: threshold,
      cka: !values['no-cka'],
      onRun: (run) => console.error(`[telepath] analysed ${path.relative(process.cwd(), run) || run}`),
    });
    console.log(res.markdown);
    console.log(`written: ${res.files.join(', ')}`);
    return 0;
  }
  const { analyzeRun, MIN_SLOT_ROWS } = await import('@telepath/analysis');
  const res = await analyzeRun(dir, {
    outDir: values.out ? path.resolve(values.out) : undefined,
    pca: { varianceThreshold: threshold },
    cka: !values['no-cka'],
  });
  if (res.droppedSlots.length)
    console.error(
      `[telepath] left out slots with fewer than ${MIN_SLOT_ROWS} vectors: ${res.droppedSlots.map((d) => `${d.name} (${d.rows})`).join(', ')}`,
    );
  console.log(res.summaryTable.toMarkdown());
  console.log(`written: ${res.files.join(', ')}`);
  return 0;
}
