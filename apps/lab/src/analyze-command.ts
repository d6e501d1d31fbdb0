/**
 * `telepath analyze <run dir>`: the subspace analysis (@telepath/analysis) of the latents a latent
 * arm stored in its run record (latents.bin): cross-capture and H_off, silhouette, principal
 * angles, CKA, participation ratio; tables and heatmaps (SVG, PNG) into <run dir>/analysis.
 */
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { describeBackend, initBackend, type BackendCandidate } from '@telepath/core';

const HELP = `Usage: telepath analyze <run dir> [--threshold 0.9] [--no-cka] [--out DIR] [--backend NAME]

Reads <run dir>/latents.bin (written for latent arms) and writes subspace.md, subspace-slots.csv,
subspace.json, cross-capture.svg/.png and cka.svg/.png into --out (default <run dir>/analysis).
  --threshold X   PCA explained-variance threshold per slot (default 0.9)
  --no-cka        skip the CKA matrix (the costliest part)`;

export async function analyzeCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { threshold: { type: 'string', default: '0.9' }, 'no-cka': { type: 'boolean', default: false }, out: { type: 'string' }, backend: { type: 'string' }, help: { type: 'boolean', short: 'h', default: false } } });
  if (values.help) {
    console.log(HELP);
    return 0;
  }
  if (positionals.length !== 1) {
    console.error(`telepath analyze: expected one run directory\n\n${HELP}`);
    return 2;
  }
  const dir = path.resolve(positionals[0]);
  if (!existsSync(path.join(dir, 'latents.bin'))) throw new Error(`${dir} has no latents.bin: only latent arms (soft-embedding, coprocessor, colar, thought-comm) store latents`);
  const threshold = Number(values.threshold);
  if (!(threshold > 0 && threshold <= 1)) throw new Error(`--threshold must be in (0, 1], got ${values.threshold}`);
  const info = await initBackend((values.backend as BackendCandidate | undefined) ?? ['wasm', 'cpu'], { quiet: true });
  console.error(describeBackend(info));
  const { analyzeRun, MIN_SLOT_ROWS } = await import('@telepath/analysis');
  const res = await analyzeRun(dir, { outDir: values.out ? path.resolve(values.out) : undefined, pca: { varianceThreshold: threshold }, cka: !values['no-cka'] });
  if (res.droppedSlots.length) console.error(`[telepath] left out slots with fewer than ${MIN_SLOT_ROWS} vectors: ${res.droppedSlots.map((d) => `${d.name} (${d.rows})`).join(', ')}`);
  console.log(res.summaryTable.toMarkdown());
  console.log(`written: ${res.files.join(', ')}`);
  return 0;
}
