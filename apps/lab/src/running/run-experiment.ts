/**
 * `telepath run`: every job of an experiment's plan (plan.ts), in order, then the comparison table.
 * Finished arms are read back from their records; unfinished ones resume; arms another process is
 * training are taken last (two runs of one experiment share its arms instead of queueing).
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import * as path from 'node:path';
import { ConfigError, writeFileAtomic } from '@telepath/core';
import { loadTaskData, type TaskData } from '../experiment/data.js';
import { armData } from '../experiment/arm-settings.js';
import type { ExperimentConfig } from '../experiment/experiment.js';
import {
  jobDir,
  jobFinished,
  jobsWithoutRow,
  neededJobs,
  planExperiment,
  runDirOf,
  type PlannedJob,
  type PlannedRow,
} from '../experiment/plan.js';
import { methodById } from '../experiment/methods.js';
import type { ArmSummary } from './arm-summary.js';
import { HEURISTIC } from './heuristic-arm.js';
import { formatSeconds } from './progress.js';
import { runArm } from './run-arm.js';
import { COMPARISON_FILE, compareArms } from '../reports/report.js';
import { liveLockHolder } from './run-lock.js';
import { tableCsv, tableMarkdown, type ArmRow } from '../reports/table.js';

export interface RunExperimentOptions {
  runsDir: string;
  force?: boolean;
  /** With `force`: only these arms are retrained (`--arms`), not the arms they start from. */
  forceOnly?: readonly string[];
  shouldStop?: () => boolean;
  quiet?: boolean;
  log?: (line: string) => void;
  /**
   * Write table.md, table.csv and experiment.json beside the runs (default true). A read-back of
   * kept records leaves them as kept unless the table is rebuilt on purpose (`--table-only`).
   */
  writeTable?: boolean;
}

/**
 * After each job that had to train: "[telepath] 3 of 16 arms to train done in 14m02s; ≈ 52m10s
 * left at this pace". The count is read from the records, so arms that other processes of the
 * same run (--workers) finished count too and the pace is theirs together: the time so far per
 * training step of the finished jobs (a job resumed from a checkpoint counts all its steps, so
 * the estimate errs short).
 */
function trainingPace(
  toTrain: PlannedJob[],
  runsDir: string,
  log: (line: string) => void,
): { finished(job: PlannedJob): void } {
  const started = Date.now();
  const ids = new Set(toTrain.map((j) => j.id));
  const totalSteps = toTrain.reduce((sum, j) => sum + stepsOf(j), 0);
  return {
    finished(job) {
      if (!ids.has(job.id) || ids.size < 2) return;
      const finished = toTrain.filter((j) => jobFinished(runsDir, j));
      const steps = finished.reduce((sum, j) => sum + stepsOf(j), 0);
      const seconds = (Date.now() - started) / 1000;
      const left =
        finished.length < ids.size && steps > 0
          ? `; ≈ ${formatSeconds((seconds / steps) * (totalSteps - steps))} left at this pace`
          : '';
      log(`[telepath] ${finished.length} of ${ids.size} arms to train done in ${formatSeconds(seconds)}${left}`);
    },
  };
}

/** A job's training steps over all its phases. */
function stepsOf(job: PlannedJob): number {
  if (job.arm.method === HEURISTIC) return 0; // a rule: nothing to train
  const phases = methodById(job.arm.method, `arm ${job.arm.name}`).phases(job.arm.config);
  return phases.reduce((sum, p) => sum + p.steps, 0);
}

/** Marks a folder of kept records (scripts/keep-records.sh writes it): runs there are read back, never trained. */
export const KEPT_RECORDS_MARKER = '.telepath-kept-records';

/** Whether `runsDir` is a folder of kept records. */
export const isKeptRecords = (runsDir: string) => existsSync(path.join(runsDir, KEPT_RECORDS_MARKER));

export async function runExperiment(
  exp: ExperimentConfig,
  o: RunExperimentOptions,
): Promise<{ results: ArmSummary[]; rows: ArmRow[]; interrupted: boolean }> {
  const log = o.log ?? ((l: string) => console.error(l));
  log(`[telepath] ${exp.name}: task ${exp.task}, ${exp.arms.length} arm(s) × ${exp.seeds.length} seed(s)`);
  const data = dataLoader(exp.task, log);
  // The plan's jobs in order (each after the job it starts from); one that another process is
  // training (or that starts from such a job) is left for a second pass, where it waits for that
  // process and reads its record.
  const plan = planExperiment(exp);
  const byId = new Map(plan.jobs.map((j) => [j.id, j]));
  const willTrain = (job: PlannedJob) => forced(o, exp, job) || !jobFinished(o.runsDir, job);
  const jobs = neededJobs(plan, willTrain);
  refuseToTrainIntoKeptRecords(jobs.filter(willTrain), o);
  const unseen = jobsWithoutRow(plan, jobs.filter(willTrain)).map((j) => `${j.id} (${stepsOf(j)} steps)`);
  if (unseen.length > 0)
    log(`[telepath] trains first, though the table has no row for it (an arm starts from it): ${unseen.join(', ')}`);
  const done = new Map<string, ArmSummary>();
  const pace = trainingPace(jobs.filter(willTrain), o.runsDir, log);
  const deferred: PlannedJob[] = [];
  // Two workers started together may both find a job free; the one that loses the race for its
  // lock (runArm's 'busy') defers it too, rather than waiting while other arms could train.
  for (const job of jobs) {
    const r = (await busyElsewhere(job)) ? 'busy' : await runJob(job, true);
    if (r === 'busy') {
      log(
        `[telepath] ${job.exp === exp ? '' : `${job.exp.name}/`}${job.arm.name} s${job.seed}: another process is training it or the arm it starts from; going on with the next arm, back to it at the end`,
      );
      deferred.push(job);
    } else if (!r) return stopped();
  }
  for (const job of deferred) {
    if (!(await runJob(job, false))) return stopped();
  }
  const results = finished();
  const dir = path.join(o.runsDir, exp.name);
  const rows = await compareArms(results, o.runsDir, exp.compareTo);
  if (o.writeTable ?? true) {
    // The baselines, for reports rebuilt from the records later.
    await writeFileAtomic(
      path.join(dir, COMPARISON_FILE),
      JSON.stringify({ name: exp.name, task: exp.task, compareTo: exp.compareTo }, null, 2) + '\n',
    );
    await writeFileAtomic(path.join(dir, 'table.md'), tableMarkdown(rows) + '\n');
    await writeFileAtomic(path.join(dir, 'table.csv'), tableCsv(rows));
  }
  return { results, rows, interrupted: false };

  async function stopped() {
    const results = finished();
    return { results, rows: await compareArms(results, o.runsDir, exp.compareTo), interrupted: true };
  }

  /** The experiment's rows whose jobs have run, a reused arm's shown (and recorded) under its name here. */
  function finished(): ArmSummary[] {
    return plan.rows
      .filter((r) => done.has(r.job))
      .map((r) => (r.reusedFrom ? asReusedRow(reusedRowRef(exp, r), done.get(r.job)!) : done.get(r.job)!));
  }

  /** Runs the job: true when done, false when interrupted, 'busy' (only with `deferIfBusy`) when another process holds it. */
  async function runJob(job: PlannedJob, deferIfBusy: boolean): Promise<boolean | 'busy'> {
    const { exp: owner, arm, seed } = job;
    let r: ArmSummary | 'interrupted' | 'busy';
    try {
      // Only this experiment's own arms are forced (with --arms, only the named ones); a reused
      // arm's source, or an arm named only as a starting point, is never retrained from here.
      const armOptions = {
        exp: owner,
        arm,
        seed,
        loadData: () => data(armData(owner, arm)),
        runsDir: o.runsDir,
        force: forced(o, exp, job),
        shouldStop: o.shouldStop,
        quiet: o.quiet,
        warn: o.log,
      };
      r = deferIfBusy ? await runArm({ ...armOptions, deferIfBusy: true }) : await runArm(armOptions);
    } catch (e) {
      throw new Error(`${owner.name} ${arm.name} s${seed}: ${(e as Error).message}`, { cause: e });
    }
    if (r === 'busy') return 'busy';
    if (r === 'interrupted') {
      log(
        `[telepath] interrupted during ${arm.name} s${seed}; checkpoints are saved — run the same command again to resume`,
      );
      return false;
    }
    log(
      `[telepath] ${owner === exp ? '' : `${owner.name}/`}${arm.name} s${seed}: accuracy ${(100 * r.accuracy).toFixed(1)}% ± ${(100 * r.stderr).toFixed(1)} (n=${r.total})`,
    );
    done.set(job.id, r);
    pace.finished(job);
    for (const row of plan.rows.filter((x) => x.job === job.id && x.reusedFrom))
      await recordReusedRow(o.runsDir, reusedRowRef(exp, row), r);
    return true;
  }

  /** Whether the job is unfinished and locked by a live process, or starts from such a job. */
  async function busyElsewhere(job: PlannedJob): Promise<boolean> {
    if (jobFinished(o.runsDir, job)) return false;
    if (await liveLockHolder(jobDir(o.runsDir, job))) return true;
    return job.after ? busyElsewhere(byId.get(job.after)!) : false;
  }
}

/** A reused arm's row, enough to show a source's summary under it: what `queue add` hands the worker that trains the source. */
export interface ReusedRowRef {
  experiment: string;
  arm: string;
  armIndex: number;
  seed: number;
  reusedFrom: string;
}

export function reusedRowRef(exp: ExperimentConfig, row: PlannedRow): ReusedRowRef {
  return {
    experiment: exp.name,
    arm: row.arm.name,
    armIndex: exp.arms.indexOf(row.arm),
    seed: row.seed,
    reusedFrom: row.reusedFrom!,
  };
}

/** The source's summary under the reused arm's name. */
export function asReusedRow(ref: ReusedRowRef, source: ArmSummary): ArmSummary {
  return { ...source, experiment: ref.experiment, arm: ref.arm, armIndex: ref.armIndex, reusedFrom: ref.reusedFrom };
}

/** Writes a reused arm's summary into its experiment's run directory too, so `report` finds it. */
export async function recordReusedRow(runsDir: string, ref: ReusedRowRef, source: ArmSummary): Promise<void> {
  const file = path.join(runDirOf(runsDir, ref.experiment, ref.arm, ref.seed), 'summary.json');
  await writeFileAtomic(file, JSON.stringify(asReusedRow(ref, source), null, 2) + '\n');
}

export async function readReusedRow(dir: string): Promise<ArmSummary> {
  return JSON.parse(await readFile(path.join(dir, 'summary.json'), 'utf8')) as ArmSummary;
}

type DataLoader = (data: object) => Promise<TaskData>;

/**
 * Task data by data settings (arms may override the experiment's data), loaded when an arm first
 * needs it: finished arms are read back without it. Only the latest settings stay loaded (the plan
 * runs an arm's seeds together), so an experiment of many arms, each with its own data, does not
 * hold them all at once.
 */
function dataLoader(task: ExperimentConfig['task'], log: (line: string) => void): DataLoader {
  let latest: { key: string; data: Promise<TaskData> } | null = null;
  return (settings) => {
    const key = JSON.stringify(settings);
    if (latest?.key !== key) latest = { key, data: loadLogged(settings) };
    return latest.data;
  };

  async function loadLogged(settings: object): Promise<TaskData> {
    const d = await loadTaskData(task, settings);
    const drawn = d.trainBatch
      ? ' (batches drawn per step: a sample of the stream, warm-up facts or a curriculum)'
      : '';
    log(`[telepath] data: ${d.train.length} train${drawn}, ${d.test.length} test examples`);
    return d;
  }
}

/** Whether `--force` retrains this job: an arm of the experiment run, named by `--arms` when that is given. */
function forced(o: RunExperimentOptions, exp: ExperimentConfig, job: PlannedJob): boolean {
  return !!o.force && job.exp.name === exp.name && (!o.forceOnly || o.forceOnly.includes(job.arm.name));
}

/**
 * Kept records have no checkpoints: an arm × seed not kept there would train into the folder (its
 * record then looks kept), and one with --force would be overwritten. Both are refused, naming
 * them, before anything trains.
 */
function refuseToTrainIntoKeptRecords(toTrain: readonly PlannedJob[], o: RunExperimentOptions): void {
  if (!isKeptRecords(o.runsDir)) return;
  if (toTrain.length === 0) return;
  const names = toTrain.map((j) => `${j.exp.name}/${j.arm.name} s${j.seed}`).join(', ');
  throw new ConfigError(
    `${o.runsDir} holds kept records (scripts/keep-records.sh): runs there are read back, never trained` +
      (o.force ? `, and --force would retrain ${names}` : `; not kept there: ${names}`) +
      `. Train with another --runs (default runs/), then keep the finished runs with scripts/keep-records.sh`,
  );
}
