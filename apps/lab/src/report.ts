/**
 * `telepath report <experiment | dir>`: rebuilds the comparison from run records only
 * (summary.json of each arm × seed): markdown and CSV tables and one self-contained HTML page.
 */
import { existsSync, promises as fs } from 'node:fs';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { writeFileAtomic } from '@telepath/core';
import { buildHtml } from './html.js';
import type { ArmSummary } from './run-arm.js';
import { aggregate, tableCsv, tableMarkdown } from './table.js';

const HELP = `Usage: telepath report <experiment name | experiment run dir> [--runs DIR] [--out DIR]

Reads <runs>/<experiment>/<arm>/s<seed>/summary.json and writes into --out (default <runs>/<experiment>/report):
  table.md, table.csv, accuracy.svg/.png, length.svg/.png, index.html (self-contained)`;

export async function reportCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { runs: { type: 'string', default: 'runs' }, out: { type: 'string' }, quiet: { type: 'boolean', default: false }, help: { type: 'boolean', short: 'h', default: false } } });
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
      try {
        out.push(JSON.parse(await fs.readFile(f, 'utf8')) as ArmSummary);
      } catch (e) {
        throw new Error(`${f}: ${(e as Error).message}`);
      }
    }
  }
  // The experiment's arm order, then seeds.
  return out.sort((a, b) => (a.armIndex ?? 0) - (b.armIndex ?? 0) || a.seed - b.seed);
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
