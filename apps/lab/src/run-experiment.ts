/**
 * `telepath run`: every arm × seed of an experiment, in order, then the comparison table.
 * Finished arms are read back from their records; unfinished ones resume; arms another process is
 * training are taken last (two runs of one experiment share its arms instead of queueing).
 */
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { writeFileAtomic } from '@telepath/core';
import { loadTaskData, type TaskData } from './data.js';
import { armData, type Arm, type ExperimentConfig } from './experiment.js';
import { armRunDir, runArm, runDirOf, type ArmSummary } from './run-arm.js';
import { liveLockHolder } from './run-lock.js';
import { aggregate, tableCsv, tableMarkdown } from './table.js';

export interface RunExperimentOptions { runsDir: string; force?: boolean; shouldStop?: () => boolean; quiet?: boolean; log?: (line: string) => void }

export async function runExperiment(exp: ExperimentConfig, o: RunExperimentOptions): Promise<{ results: ArmSummary[]; interrupted: boolean }> {
  const log = o.log ?? ((l: string) => console.error(l));
  log(`[telepath] ${exp.name}: task ${exp.task}, ${exp.arms.length} arm(s) × ${exp.seeds.length} seed(s)`);
  const data = dataLoader(exp.task);
  const first = await data(exp.data);
  log(`[telepath] data: ${first.train.length} train${first.trainBatch ? ' (a sample of the training stream)' : ''}, ${first.test.length} test examples`);
  // Arm × seed in config order; one that another process is training (or that starts from such an
  // arm) is left for a second pass, where it waits for that process and reads its record.
  const jobs = exp.arms.flatMap((arm) => exp.seeds.map((seed) => ({ arm, seed })));
  const done = new Map<(typeof jobs)[number], ArmSummary>();
  const deferred: typeof jobs = [];
  for (const job of jobs) {
    if (await busyElsewhere(exp, job.arm.name, job.seed, o.runsDir)) {
      log(`[telepath] ${job.arm.name} s${job.seed}: another process is training it or the arm it starts from; going on with the next arm, back to it at the end`);
      deferred.push(job);
      continue;
    }
    if (!(await runJob(job))) return { results: finished(), interrupted: true };
  }
  for (const job of deferred) {
    if (!(await runJob(job))) return { results: finished(), interrupted: true };
  }
  const results = finished();
  const rows = aggregate(results);
  const dir = path.join(o.runsDir, exp.name);
  await writeFileAtomic(path.join(dir, 'table.md'), tableMarkdown(rows) + '\n');
  await writeFileAtomic(path.join(dir, 'table.csv'), tableCsv(rows));
  return { results, interrupted: false };

  function finished(): ArmSummary[] {
    return jobs.filter((j) => done.has(j)).map((j) => done.get(j)!);
  }

  async function runJob(job: (typeof jobs)[number]): Promise<boolean> {
    const { arm, seed } = job;
    let r: Awaited<ReturnType<typeof runArm>>;
    try {
      r = arm.reuse ? await runReused(exp, arm, seed, data, o) : await runArm({ exp, arm, seed, data: await data(armData(exp, arm)), runsDir: o.runsDir, force: o.force, shouldStop: o.shouldStop, quiet: o.quiet, warn: o.log });
    } catch (e) {
      throw new Error(`${exp.name} ${arm.name} s${seed}: ${(e as Error).message}`, { cause: e });
    }
    if (r === 'interrupted') {
      log(`[telepath] interrupted during ${arm.name} s${seed}; checkpoints are saved — run the same command again to resume`);
      return false;
    }
    log(`[telepath] ${arm.name} s${seed}: accuracy ${(100 * r.accuracy).toFixed(1)}% ± ${(100 * r.stderr).toFixed(1)} (n=${r.total})`);
    done.set(job, r);
    return true;
  }
}

type DataLoader = (data: object) => Promise<TaskData>;

/** Task data by data settings, each loaded once (arms may override the experiment's data). */
function dataLoader(task: ExperimentConfig['task']): DataLoader {
  const cache = new Map<string, Promise<TaskData>>();
  return (data) => {
    const key = JSON.stringify(data);
    if (!cache.has(key)) cache.set(key, loadTaskData(task, data));
    return cache.get(key)!;
  };
}

/** Whether arm `name` × seed (in its source experiment when reused) is unfinished and locked by a live process, or starts from such an arm. */
async function busyElsewhere(exp: ExperimentConfig, name: string, seed: number, runsDir: string): Promise<boolean> {
  const arm = exp.arms.find((a) => a.name === name)!;
  if (arm.reuse) return busyElsewhere(arm.reuse.experiment, arm.reuse.arm, seed, runsDir);
  const dir = runDirOf(runsDir, exp.name, name, seed);
  if (existsSync(path.join(dir, 'summary.json'))) return false;
  if (await liveLockHolder(dir)) return true;
  return arm.initFrom ? busyElsewhere(exp, arm.initFrom, seed, runsDir) : false;
}

/**
 * A reused arm: its source arm (and the arms that arm starts from) run in the source experiment's
 * run directory unless finished there — never forced from here — and the result is shown under this
 * experiment's arm name, with a copy of the summary in this experiment's directory so `report` finds it.
 */
async function runReused(exp: ExperimentConfig, arm: Arm, seed: number, data: DataLoader, o: RunExperimentOptions): Promise<ArmSummary | 'interrupted'> {
  const r = await runWithSources(exp, arm.name, seed, data, o);
  if (r === 'interrupted') return r;
  const summary: ArmSummary = { ...r, experiment: exp.name, arm: arm.name, armIndex: exp.arms.indexOf(arm), reusedFrom: `${r.experiment}/${r.arm}` };
  await writeFileAtomic(path.join(runDirOf(o.runsDir, exp.name, arm.name, seed), 'summary.json'), JSON.stringify(summary, null, 2) + '\n');
  return summary;
}

/**
 * Runs arm `name` of `exp` — in its source experiment when it is a reused arm — after the arm it
 * starts from (initFrom, itself possibly reused), recursively; finished arms are read back.
 */
async function runWithSources(exp: ExperimentConfig, name: string, seed: number, data: DataLoader, o: RunExperimentOptions): Promise<ArmSummary | 'interrupted'> {
  const arm = exp.arms.find((a) => a.name === name)!;
  if (arm.reuse) return runWithSources(arm.reuse.experiment, arm.reuse.arm, seed, data, o);
  if (arm.initFrom && !existsSync(path.join(armRunDir(o.runsDir, exp, arm.initFrom, seed), 'summary.json'))) {
    const dep = await runWithSources(exp, arm.initFrom, seed, data, o);
    if (dep === 'interrupted') return dep;
  }
  return runArm({ exp, arm, seed, data: await data(armData(exp, arm)), runsDir: o.runsDir, shouldStop: o.shouldStop, quiet: o.quiet, warn: o.log });
}
