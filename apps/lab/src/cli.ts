/**
 * The `telepath` CLI. Commands: run, eval, report, list. `telepath <command> --help` for each.
 */
import { parseArgs } from 'node:util';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describeBackend, initBackend, isUserError, type BackendCandidate } from '@telepath/core';
import { analyzeCommand } from './analyze-command.js';
import { evalCommand } from './eval-command.js';
import { EXPERIMENT_KINDS, readKind } from './kinds.js';
import { listCommand } from './list.js';
import { lmCommand } from './lm-command.js';
import { loadExperiment } from './experiment.js';
import { reportCommand } from './report.js';
import type { ArmSummary } from './run-arm.js';
import { runExperiment } from './run-experiment.js';
import { statusCommand } from './status.js';
import { queueCommand, workerCommand } from './queue/command.js';
import { startWorkers, withoutWorkers } from './workers.js';
import { loadSweep, writeSweepReport } from './sweep.js';
import { resultsJson, tableText } from './table.js';
import { stopOnCtrlC } from './interrupt.js';

const HELP = `telepath — latent reasoning experiments

Usage: telepath <command> [options]

Commands:
  run <experiment.json>    train and evaluate every arm × seed, print the comparison table
  status <experiment.json> where every arm × seed stands: done, training, stopped or not started
  eval <run dir> --data F  evaluate a trained arm on another file of the same task
  report <name | dir>      rebuild tables, charts and the HTML report from run records
  analyze <run dir>        subspace analysis of a latent arm's latents (tables, heatmaps)
  lm <folder>              load a Hugging Face GPT-2 folder: one forward pass and a greedy continuation
  list                     experiments, tasks and methods
  queue add|status <exp>   arms × seeds as jobs on a Redis queue, and where they stand (several machines)
  worker --redis URL       take jobs from that queue and train them (one per machine)

Common options:
  --runs DIR               where run records go (default: runs)
  --backend NAME           node-gpu | node | native | wasm | cpu (default: fastest available)
  -h, --help               help for a command`;

const RUN_HELP = `Usage: telepath run experiments/<name>.json [--set key=value ...] [--json] [--force] [--runs DIR] [--backend NAME]

Trains and evaluates each arm for each seed, writing run records under <runs>/<experiment>/<arm>/s<seed>/,
then prints the comparison table and writes table.md / table.csv beside the runs.
A config with a top-level "kind" (thought-comm-synthetic, thought-comm-agents) runs that kind's own
experiment instead, with its records under <runs>/<name>/ and its own table (or JSON with --json).
A config with "sweep": { "key": "data.n", "values": [3, 4, 5, 6] } runs one experiment per value
(<name>-n3, <name>-n4, …), then writes the accuracy of every arm against the value to
<runs>/<name>/sweep/ (sweep.md, sweep.csv, accuracy-vs-n.svg/.png); --set 'sweep.values=[3,6]' runs a subset.
  --set key=value   override a config value (JSON-parsed), e.g. --set train.batchSize=16 --set arms.cot.config.steps=200
  --set profile=P   apply the config's profiles.P overrides (and the same profile of every experiment it reuses);
                    its records go under <name>-P, e.g. --set profile=large, sized for a GPU
  --json            print {"experiment", "arms": [...], "runs": [...]} on stdout instead of the table: one entry per
                    table row in "arms" (accuracy, stderr, n = questions × seeds, "paired": [{"baseline", "diff", "lo", "hi"}],
                    diagnostics), one per arm × seed in "runs"
  --force           retrain finished arms instead of reading their records
  --workers N       run N processes that split the arms (each arm still trains once), e.g. one per core;
                    each gets ⌊cores / N⌋ native threads unless TELEPATH_NATIVE_THREADS is set
Ctrl-C stops after the current step with checkpoints written; the same command resumes.`;

export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (!command || command === '-h' || command === '--help' || command === 'help') {
    console.log(HELP);
    return command ? 0 : 2;
  }
  switch (command) {
    case 'run':
      return runCommand(rest);
    case 'eval':
      return evalCommand(rest);
    case 'report':
      return reportCommand(rest);
    case 'analyze':
      return analyzeCommand(rest);
    case 'list':
      return listCommand(rest);
    case 'status':
      return statusCommand(rest);
    case 'lm':
      return lmCommand(rest);
    case 'queue':
      return queueCommand(rest);
    case 'worker':
      return workerCommand(rest);
    default:
      console.error(`telepath: unknown command "${command}". Expected one of: run, status, eval, report, analyze, lm, list, queue, worker\n\n${HELP}`);
      return 2;
  }
}

async function runCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { set: { type: 'string', multiple: true, default: [] }, json: { type: 'boolean', default: false }, force: { type: 'boolean', default: false }, runs: { type: 'string', default: 'runs' }, backend: { type: 'string' }, quiet: { type: 'boolean', default: false }, workers: { type: 'string', default: '1' }, help: { type: 'boolean', short: 'h', default: false } },
  });
  if (values.help) {
    console.log(RUN_HELP);
    return 0;
  }
  if (positionals.length !== 1) {
    console.error(`telepath run: expected one experiment file\n\n${RUN_HELP}`);
    return 2;
  }
  const kind = await readKind(positionals[0], values.set);
  const sweep = kind ? null : await loadSweep(positionals[0], values.set);
  const exp = kind || sweep ? null : await loadExperiment(positionals[0], values.set);
  const workerCount = Number(values.workers);
  if (!Number.isInteger(workerCount) || workerCount < 1) {
    console.error(`telepath run: --workers takes a positive integer (processes that split the arms), got ${JSON.stringify(values.workers)}`);
    return 2;
  }
  if (workerCount > 1 && (kind || values.force)) {
    console.error(`telepath run: --workers splits the arms of an arm experiment between processes; it cannot be combined with ${kind ? `a "kind" experiment (${kind.kind})` : '--force'}`);
    return 2;
  }
  const workers = workerCount === 1 ? null : startWorkers(fileURLToPath(import.meta.url), withoutWorkers(args), workerCount);
  const code = await runInThisProcess();
  if (!workers) return code;
  const codes = await workers.exited;
  const failed = codes.map((c, i) => [i + 2, c]).filter(([, c]) => c !== 0);
  if (failed.length) console.error(`[telepath] ${failed.map(([w, c]) => `worker ${w} exited with ${c}`).join(', ')}`);
  return code !== 0 ? code : failed.length ? failed[0][1] : 0;

  async function runInThisProcess(): Promise<number> {
    const info = await initBackend(values.backend as BackendCandidate | undefined, { quiet: true });
    console.error(describeBackend(info));
    const stop = stopOnCtrlC();
    try {
      if (kind) {
        const r = await EXPERIMENT_KINDS[kind.kind].run(kind.raw, { file: path.basename(positionals[0]), runsDir: path.resolve(values.runs!), json: values.json, force: values.force, shouldStop: stop.requested, log: (l) => console.error(l) });
        console.log(values.json ? JSON.stringify(r.json) : `\n${r.text}`);
        return r.interrupted ? 130 : 0;
      }
      const experiments = sweep ? sweep.experiments : exp ? [exp] : [];
      const done: ArmSummary[][] = [];
      const json: object[] = [];
      for (const e of experiments) {
        const { results, rows, interrupted } = await runExperiment(e, { runsDir: path.resolve(values.runs!), force: values.force, shouldStop: stop.requested, quiet: values.quiet });
        if (!values.json && results.length) console.log(`\n${e.name} (${e.task})\n${tableText(rows)}`);
        if (interrupted) return 130;
        done.push(results);
        json.push(resultsJson(e.name, results, rows));
        if (!values.json) {
          const report = await reportCommand([e.name, '--runs', values.runs!, '--quiet']);
          if (report !== 0) return report;
        }
      }
      if (values.json) {
        console.log(JSON.stringify(sweep ? { sweep: sweep.name, key: sweep.key, values: sweep.values, experiments: json } : json[0]));
      } else if (sweep) {
        const { markdown } = await writeSweepReport(sweep, done, path.resolve(values.runs!));
        console.log(`\n${sweep.name}: accuracy against ${sweep.key}\n${markdown}`);
      }
      return 0;
    } finally {
      stop.release();
    }
  }
}

/**
 * What the CLI prints for an error that ends a command. A bad config, value or file (core's
 * UserError — ConfigError, DataError, a corrupt checkpoint — or a plain Error with its own clear
 * message) is one line, no stack; anything else is a bug, and its stack is what a report needs.
 */
export function cliErrorText(e: unknown): string {
  if (!(e instanceof Error)) return `telepath: ${String(e)}`;
  const bug = [e, e.cause].find((x): x is Error => x instanceof Error && !isUserError(x));
  return bug?.stack ? `telepath: ${e.message}\n${bug.stack}` : `telepath: ${e.message}`;
}

const isMain = process.argv[1] && path.resolve(process.argv[1]) === path.resolve(new URL(import.meta.url).pathname);
if (isMain) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (e: Error) => {
      console.error(cliErrorText(e));
      process.exit(1);
    },
  );
}
