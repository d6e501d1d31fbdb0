/**
 * `telepath report <experiment | dir>`: rebuilds the comparison from an experiment's run records
 * (reports/report.ts) into --out. The baselines come from --compare, else the `compareTo` the run
 * recorded (<runs>/<experiment>/experiment.json), else experiments/<experiment>.json.
 */
import { existsSync, promises as fs } from 'node:fs';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { COMPARISON_FILE, missingSeeds, readSummaries, writeReport } from '../reports/report.js';
import { printHelp, usageError } from './command-args.js';

const HELP = `Usage: telepath report <experiment name | experiment run dir> [--runs DIR] [--out DIR] [--compare a,b] [--allow-missing]

Reads <runs>/<experiment>/<arm>/s<seed>/summary.json (and samples.jsonl, metrics.jsonl) and writes into
--out (default <runs>/<experiment>/report): table.md (comparison and diagnostics), table.csv,
accuracy.svg/.png, length.svg/.png, loss.svg/.png and val-acc.svg/.png (training curves), index.html (self-contained)
  --compare a,b   baseline arms for the paired differences (default: the experiment's compareTo)
  --allow-missing build the report even where an arm × seed without a summary.json (a seed another
                  arm has) leaves a mean over fewer seeds; each one is named (without it: an error)`;

/** The baselines of an experiment's records: those the run recorded, else its config in experiments/ (cwd), else none. */
async function recordedCompareTo(dir: string): Promise<string[]> {
  for (const file of [path.join(dir, COMPARISON_FILE), path.resolve('experiments', `${path.basename(dir)}.json`)]) {
    if (!existsSync(file)) continue;
    const c = (JSON.parse(await fs.readFile(file, 'utf8')) as { compareTo?: unknown }).compareTo;
    if (Array.isArray(c) && c.every((x) => typeof x === 'string')) return c;
  }
  return [];
}

export async function reportCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      runs: { type: 'string', default: 'runs' },
      out: { type: 'string' },
      compare: { type: 'string' },
      'allow-missing': { type: 'boolean', default: false },
      quiet: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) return printHelp(HELP);
  if (positionals.length !== 1) return usageError('report', 'expected an experiment name or directory', HELP);
  const target = positionals[0];
  const dir =
    existsSync(target) && (await fs.stat(target)).isDirectory()
      ? path.resolve(target)
      : path.resolve(values.runs!, target);
  const missing = await missingSeeds(dir);
  if (missing.length > 0 && !values['allow-missing']) {
    throw new Error(
      `${dir}: ${missing.length} arm × seed record(s) missing, so their arms' means would cover fewer seeds: ${missing.join('; ')}. Finish them (telepath run), or pass --allow-missing to report the seeds there are`,
    );
  }
  for (const m of missing) console.error(`[telepath] report: missing ${m}; its arm's mean covers fewer seeds`);
  const results = await readSummaries(dir);
  if (results.length === 0) throw new Error(`${dir}: no finished runs (no <arm>/s<seed>/summary.json)`);
  const out = path.resolve(values.out ?? path.join(dir, 'report'));
  const compareTo =
    values.compare !== undefined ? values.compare.split(',').filter((x) => x !== '') : await recordedCompareTo(dir);
  const files = await writeReport(results, out, { runsDir: path.dirname(dir), compareTo });
  if (!values.quiet) console.log(`report: ${files.join(', ')}`);
  else console.error(`[telepath] report: ${path.join(out, 'index.html')}`);
  return 0;
}
