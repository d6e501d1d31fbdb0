/**
 * `telepath queue add | status` and `telepath worker`: an experiment's arms as jobs on a BullMQ
 * queue in Redis, taken by workers on any machine that sees the same runs folder.
 */
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { describeBackend, initBackend, type BackendCandidate } from '@telepath/core';
import type { ExperimentConfig } from '../experiment/experiment.js';
import { loadExperiment } from '../experiment/load-experiment.js';
import { readKind } from '../experiment/kinds.js';
import { planExperiment } from '../experiment/plan.js';
import { loadSweep } from '../experiment/sweep.js';
import { enqueuePlan } from './add.js';
import { checkQueueFormat, openRedis, safeUrl } from './connection.js';
import { formatQueueStatus, planQueueStatus, type QueueState } from './status.js';
import { runQueueWorker } from './worker.js';
import { stopOnCtrlC } from '../running/interrupt.js';
import { integerOption, printHelp, usageError } from '../commands/command-args.js';

const QUEUE_HELP = `Usage: telepath queue add experiments/<name>.json [--set key=value ...] --redis URL [--runs DIR] [--json]
       telepath queue status experiments/<name>.json [--set key=value ...] --redis URL [--runs DIR] [--json]

add     enqueues every arm × seed of the experiment (a sweep: of each of its experiments) as a job.
        An arm that starts from another (initFrom, also through a reused arm) waits for it (a BullMQ
        flow); arms finished in the runs folder are not enqueued; failed jobs are enqueued again.
        --json prints {"experiment", "jobs": <jobs added>}.
status  waiting, active (worker, step), completed and failed (with the error) jobs of the experiment.
        --json prints {"waiting", "active", "completed", "failed"}.
  --redis URL   redis://[:PASSWORD@]HOST:PORT[/DB], the Redis every worker uses
  --runs DIR    the runs folder every worker shares (default: runs)`;

const WORKER_HELP = `Usage: telepath worker --redis URL --runs DIR [--exit-when-idle] [--concurrency 1] [--lock-seconds 120] [--backend NAME]

Takes arm jobs from the queue (telepath queue add) and trains and evaluates each, writing the usual
run records under DIR, a folder every worker sees. Start one per machine.
  --exit-when-idle   exit 0 once no job is waiting or active
  --concurrency N    jobs at once in this process (default 1)
  --lock-seconds S   a job's lock, renewed while it trains: a dead worker's job is handed on after
                     S to 2·S seconds and resumes from its checkpoint (default 120). Keep it above the
                     longest training step or evaluation batch, which hold the lock's renewal back
Ctrl-C stops after the current step with a checkpoint and hands the job back to the queue.`;

export async function queueCommand(args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  if (sub !== 'add' && sub !== 'status') {
    const help = !sub || sub === '-h' || sub === '--help';
    (help ? console.log : console.error)(
      help ? QUEUE_HELP : `telepath queue: expected "add" or "status", got ${JSON.stringify(sub)}\n\n${QUEUE_HELP}`,
    );
    return help ? 0 : 2;
  }
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    options: {
      set: { type: 'string', multiple: true, default: [] },
      redis: { type: 'string' },
      runs: { type: 'string', default: 'runs' },
      json: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) return printHelp(QUEUE_HELP);
  if (positionals.length !== 1 || !values.redis)
    return usageError(`queue ${sub}`, 'expected one experiment file and --redis URL', QUEUE_HELP);
  const file = positionals[0];
  if (await readKind(file, values.set)) {
    console.error(
      `telepath queue: ${file} is a "kind" experiment; the queue takes arm experiments (run it with telepath run)`,
    );
    return 2;
  }
  const sweep = await loadSweep(file, values.set);
  const experiments: ExperimentConfig[] = sweep ? sweep.experiments : [await loadExperiment(file, values.set)];
  const name = sweep ? sweep.name : experiments[0].name;
  const runsDir = path.resolve(values.runs!);
  const redis = await openRedis(values.redis);
  try {
    await checkQueueFormat(redis, values.redis, sub === 'add');
    if (sub === 'add') {
      let jobs = 0;
      for (const exp of experiments) {
        const r = await enqueuePlan(redis, planExperiment(exp), runsDir);
        jobs += r.added;
        if (!values.json)
          console.log(
            `${exp.name}: ${r.added} job(s) added to ${safeUrl(values.redis)}${r.alreadyQueued ? `, ${r.alreadyQueued} already queued` : ''}${r.finished ? `, ${r.finished} finished (not added)` : ''}`,
          );
      }
      if (values.json) console.log(JSON.stringify({ experiment: name, jobs }));
      return 0;
    }
    const counts: Record<QueueState, number> = { waiting: 0, active: 0, completed: 0, failed: 0 };
    for (const exp of experiments) {
      const s = await planQueueStatus(redis, planExperiment(exp), runsDir);
      for (const k of Object.keys(counts) as QueueState[]) counts[k] += s.counts[k];
      if (!values.json) console.log(formatQueueStatus(exp.name, s));
    }
    if (values.json) console.log(JSON.stringify(counts));
    return 0;
  } finally {
    redis.disconnect();
  }
}

export async function workerCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      redis: { type: 'string' },
      runs: { type: 'string' },
      'exit-when-idle': { type: 'boolean', default: false },
      concurrency: { type: 'string', default: '1' },
      'lock-seconds': { type: 'string', default: '120' },
      backend: { type: 'string' },
      quiet: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) return printHelp(WORKER_HELP);
  const lockSeconds = Number(values['lock-seconds']);
  const bad =
    positionals.length > 0
      ? `unexpected argument ${JSON.stringify(positionals[0])}`
      : !values.redis || !values.runs
        ? 'expected --redis URL and --runs DIR'
        : !(lockSeconds >= 1)
          ? `--lock-seconds takes a number of seconds ≥ 1, got ${JSON.stringify(values['lock-seconds'])}`
          : null;
  if (bad) return usageError('worker', bad, WORKER_HELP);
  const concurrency = integerOption('worker', '--concurrency', values.concurrency, 1);
  const info = await initBackend(values.backend as BackendCandidate | undefined, { quiet: true });
  console.error(describeBackend(info));
  const stop = stopOnCtrlC();
  try {
    return await runQueueWorker({
      redisUrl: values.redis!,
      runsDir: path.resolve(values.runs!),
      concurrency,
      lockMs: Math.round(lockSeconds * 1000),
      exitWhenIdle: values['exit-when-idle']!,
      quiet: values.quiet! || !process.stderr.isTTY,
      shouldStop: stop.requested,
      log: (l) => console.error(l),
    });
  } finally {
    stop.release();
  }
}
