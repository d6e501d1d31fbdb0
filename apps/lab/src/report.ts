/**
 * `telepath report <experiment | dir>`: rebuilds the comparison from run records only
 * (summary.json of each arm × seed): markdown and CSV tables and one self-contained HTML page.
 */
import { existsSync, promises as fs } from 'node:fs';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { readJsonFile, writeFileAtomic } from '@telepath/core';
import { buildHtml } from './html.js';
import type { ArmSummary } from './run-arm.js';
import { aggregate, tableCsv, tableMarkdown } from './table.js';

const HELP = `Usage: telepath report <experiment name | experiment run dir> [--runs DIR] [--out DIR] [--allow-missing]

Reads <runs>/<experiment>/<arm>/s<seed>/summary.json and writes into --out (default <runs>/<experiment>/report):
  table.md, table.csv, accuracy.svg/.png, length.svg/.png, index.html (self-contained)
An arm × seed without a summary.json (a seed another arm has) is an error naming it: a mean over
fewer seeds is not the experiment's. --allow-missing builds the report anyway, naming each one.`;

export async function reportCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { runs: { type: 'string', default: 'runs' }, out: { type: 'string' }, 'allow-missing': { type: 'boolean', default: false }, quiet: { type: 'boolean', default: false }, help: { type: 'boolean', short: 'h', default: false } } });
  if (values.help) {
    console.log(HELP);
    return 0;
  }
  if (positionals.length !== 1) {
    console.error(`telepath report: expected an experiment name or directory\n\n${HELP}`);
    return 2;
  }
  const target = positionals[0];
  const dir = existsSync(target) && (await fs.stat(target)).isDirectory() ? path.resolve(target) : path.resolve(values.runs!, target);
  const missing = await missingSeeds(dir);
  if (missing.length > 0 && !values['allow-missing']) {
    throw new Error(`${dir}: ${missing.length} arm × seed record(s) missing, so their arms' means would cover fewer seeds: ${missing.join('; ')}. Finish them (telepath run), or pass --allow-missing to report the seeds there are`);
  }
  for (const m of missing) console.error(`[telepath] report: missing ${m}; its arm's mean covers fewer seeds`);
  const results = await readSummaries(dir);
  if (results.length === 0) throw new Error(`${dir}: no finished runs (no <arm>/s<seed>/summary.json)`);
  const out = path.resolve(values.out ?? path.join(dir, 'report'));
  const files = await writeReport(results, out);
  if (!values.quiet) console.log(`report: ${files.join(', ')}`);
  else console.error(`[telepath] report: ${path.join(out, 'index.html')}`);
  return 0;
}

/** Every finished arm × seed under an experiment directory, in arm order then seed order. */
export async function readSummaries(dir: string): Promise<ArmSummary[]> {
  const out: ArmSummary[] = [];
  let arms: string[];
  try {
    arms = (await fs.readdir(dir, { withFileTypes: true })).filter((d) => d.isDirectory() && d.name !== 'report').map((d) => d.name);
  } catch (e) {
    throw new Error(`cannot read experiment directory ${dir}: ${(e as Error).message}`);
  }
  for (const arm of arms.sort()) {
    const seeds = (await fs.readdir(path.join(dir, arm))).filter((s) => /^s-?\d+$/.test(s)).sort((a, b) => Number(a.slice(1)) - Number(b.slice(1)));
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
      if (!existsSync(f)) out.push(`${arm} ${s} (${seeds.includes(s) ? `${f}: not finished` : `no ${path.join(dir, arm, s)}`})`);
    }
  }
  return out;
}

export async function writeReport(results: ArmSummary[], out: string): Promise<string[]> {
  const rows = aggregate(results);
  const experiment = results[0].experiment;
  await writeFileAtomic(path.join(out, 'table.md'), tableMarkdown(rows) + '\n');
  await writeFileAtomic(path.join(out, 'table.csv'), tableCsv(rows));
  const html = await buildHtml(experiment, rows, results, out);
  await writeFileAtomic(path.join(out, 'index.html'), html.page);
  return ['table.md', 'table.csv', ...html.files, 'index.html'].map((f) => path.join(out, f));
}
