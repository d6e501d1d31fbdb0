/**
 * `telepath run <experiment.json>`: every arm × seed of an experiment (or each experiment of a
 * sweep, or a "kind" experiment's own runner), then the comparison table and the report; with
 * --workers N, N − 1 more processes of this same command split the arms.
 */
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { describeBackend, initBackend, type BackendCandidate } from '@telepath/core';
import { EXPERIMENT_KINDS, readKind } from '../experiment/kinds.js';
import { loadExperiment } from '../experiment/load-experiment.js';
import { onlyArms, onlyArmsOfEach, parseArmList } from '../experiment/only-arms.js';
import { loadSweep, writeSweepReport } from '../experiment/sweep.js';
import { resultsJson, tableText } from '../reports/table.js';
import { missingSeeds } from '../reports/report.js';
import type { ArmSummary } from '../running/arm-summary.js';
import { isKeptRecords, runExperiment } from '../running/run-experiment.js';
import { startWorkers, withoutWorkers } from '../running/workers.js';
import { stopOnCtrlC } from '../running/interrupt.js';
import { reportCommand } from './report.js';
import { integerOption, printHelp, usageError } from './command-args.js';

/** The CLI script the workers run (this same command, in child processes). */
const CLI = fileURLToPath(new URL('../cli.ts', import.meta.url));

const RUN_HELP = `Usage: telepath run experiments/<name>.json [--set key=value ...] [--arms a,b] [--json] [--force] [--table-only] [--runs DIR] [--backend NAME]

Trains and evaluates each arm for each seed, writing run records under <runs>/<experiment>/<arm>/s<seed>/,
then prints the comparison table and writes table.md / table.csv beside the runs.
A config with a top-level "kind" (thought-comm-synthetic, thought-comm-agents) runs that kind's own
experiment instead, with its records under <runs>/<name>/ and its own table (or JSON with --json).
A config with "sweep": { "key": "data.n", "values": [3, 4, 5, 6] } runs one experiment per value
(<name>-n3, <name>-n4, …), then writes the accuracy of every arm against the value to
<runs>/<name>/sweep/ (sweep.md, sweep.csv, accuracy-vs-n.svg/.png); --set 'sweep.values=[3,6]' runs a subset.
"sweep": { "key": "data.n", "experiments": ["latent-countdown3", "latent-countdown4"] } does the same
over whole experiment files of the config's folder, each value read from its file; --arms then picks,
in each, the named arms it has. sweep.md adds each arm's paired difference from the compareTo arms.
  --set key=value   override a config value (JSON-parsed), e.g. --set train.batchSize=16 --set arms.cot.config.steps=200
  --set profile=P   apply the config's profiles.P overrides (and the same profile of every experiment it reuses);
                    its records go under <name>-P, e.g. --set profile=large, sized for a GPU
  --arms a,b        only these arms (and the arms they start from, initFrom), e.g. one long reference; their
                    records are those of a full run, which reads them back later
  --json            print {"experiment", "arms": [...], "runs": [...]} on stdout instead of the table: one entry per
                    table row in "arms" (accuracy, stderr, n = questions × seeds, "paired": [{"baseline", "diff", "lo", "hi"}],
                    a control row's with baseline "own arm", diagnostics), one per arm × seed in "runs"
  --table-only      write table.md / table.csv but not the HTML report (report/), e.g. when rebuilding the table
                    of a directory of kept records (telepath report <name> builds the report later); in such a
                    directory (scripts/keep-records.sh) run writes no table or report without it, so a
                    read-back of some arms (--arms a,b --json) leaves the kept table whole
  --force           retrain finished arms instead of reading their records (with --arms: only the named arms,
                    not the arms they start from)
  --workers N       run N processes that split the arms (each arm still trains once), e.g. one per core;
                    each gets ⌊cores / N⌋ native threads unless TELEPATH_NATIVE_THREADS is set
Ctrl-C stops after the current step with checkpoints written; the same command resumes.`;

export async function runCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      set: { type: 'string', multiple: true, default: [] },
      json: { type: 'boolean', default: false },
      force: { type: 'boolean', default: false },
      'table-only': { type: 'boolean', default: false },
      runs: { type: 'string', default: 'runs' },
      backend: { type: 'string' },
      quiet: { type: 'boolean', default: false },
      workers: { type: 'string', default: '1' },
      arms: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) return printHelp(RUN_HELP);
  if (positionals.length !== 1) return usageError('run', 'expected one experiment file', RUN_HELP);
  const kind = await readKind(positionals[0], values.set);
  const sweep = kind ? null : await loadSweep(positionals[0], values.set);
  if (kind && values.arms !== undefined) {
    console.error(`telepath run: --arms picks arms of an arm experiment; a "kind" experiment (${kind.kind}) has none`);
    return 2;
  }
  const cut = values.arms === undefined ? null : parseArmList(values.arms);
  const loaded = kind || sweep ? null : await loadExperiment(positionals[0], values.set);
  const exp = loaded && cut ? onlyArms(loaded, cut) : loaded;
  if (sweep && cut) sweep.experiments = onlyArmsOfEach(sweep.experiments, cut);
  const workerCount = integerOption('run', '--workers', values.workers, 1, 'processes that split the arms');
  if (workerCount > 1 && (kind || values.force)) {
    console.error(
      `telepath run: --workers splits the arms of an arm experiment between processes; it cannot be combined with ${kind ? `a "kind" experiment (${kind.kind})` : '--force'}`,
    );
    return 2;
  }
  const workers = workerCount === 1 ? null : startWorkers(CLI, withoutWorkers(args), workerCount);
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
        const r = await EXPERIMENT_KINDS[kind.kind].run(kind.raw, {
          file: path.basename(positionals[0]),
          runsDir: path.resolve(values.runs!),
          json: values.json,
          force: values.force,
          shouldStop: stop.requested,
          log: (l) => console.error(l),
        });
        console.log(values.json ? JSON.stringify(r.json) : `\n${r.text}`);
        return r.interrupted ? 130 : 0;
      }
      const experiments = sweep ? sweep.experiments : exp ? [exp] : [];
      // Kept records are read back as kept: their table is rewritten only when asked (--table-only), never a report.
      const kept = isKeptRecords(path.resolve(values.runs!));
      const done: ArmSummary[][] = [];
      const json: object[] = [];
      for (const e of experiments) {
        const { results, rows, interrupted } = await runExperiment(e, {
          runsDir: path.resolve(values.runs!),
          force: values.force,
          forceOnly: cut ?? undefined,
          shouldStop: stop.requested,
          quiet: values.quiet,
          writeTable: !kept || values['table-only'],
        });
        if (!values.json && results.length) console.log(`\n${e.name} (${e.task})\n${tableText(rows)}`);
        if (interrupted) return 130;
        done.push(results);
        json.push(resultsJson(e.name, results, rows));
        if (!values.json && !values['table-only'] && !kept) {
          // A run of some arms or seeds succeeds with the directory's other records unfinished;
          // the page, which averages every arm of the directory, then waits for them (the report
          // command refuses fewer seeds unless told), so say so rather than fail a finished run.
          const missing = await missingSeeds(path.resolve(values.runs!, e.name));
          if (missing.length > 0)
            console.error(
              `[telepath] report not rebuilt: ${missing.length} arm × seed record(s) of ${e.name} are not finished (${missing[0]}${missing.length > 1 ? ', …' : ''}); \`telepath report ${e.name} --allow-missing\` builds it from what there is`,
            );
          else {
            const report = await reportCommand([e.name, '--runs', values.runs!, '--quiet']);
            if (report !== 0) return report;
          }
        }
      }
      if (values.json) {
        console.log(
          JSON.stringify(
            sweep ? { sweep: sweep.name, key: sweep.key, values: sweep.values, experiments: json } : json[0],
          ),
        );
      } else if (sweep && (!kept || values['table-only'])) {
        const { markdown } = await writeSweepReport(sweep, done, path.resolve(values.runs!));
        console.log(`\n${sweep.name}: accuracy against ${sweep.key}\n${markdown}`);
      }
      return 0;
    } finally {
      stop.release();
    }
  }
}
