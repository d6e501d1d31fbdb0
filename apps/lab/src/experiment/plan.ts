/**
 * An experiment resolved once into what must run, and in what order: one job per arm × seed that
 * trains (a reused arm's job is its source arm's, in the source experiment), each naming the job
 * whose trained weights it starts from (`initFrom`, which must finish first). The local runner
 * (`telepath run`, run-experiment.ts) and the queue (`telepath queue add`, queue/) both execute
 * this plan; `telepath status` and `queue status` read it. Arms are generic: whatever a method's
 * arm does (train, or nothing to train), it is one job.
 */
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import type { Arm, ExperimentConfig } from './experiment.js';

export interface PlannedJob {
  /** "<experiment>/<arm>/s<seed>" of the experiment and arm that train it: unique across experiments. */
  id: string;
  /** The experiment that trains it (a reused arm's source experiment). */
  exp: ExperimentConfig;
  /** Its arm in that experiment (never a reused one). */
  arm: Arm;
  seed: number;
  /** Id of the job it starts from (initFrom), which must finish first; null when it starts from scratch. */
  after: string | null;
}

/** One arm × seed of the planned experiment and the job whose record it shows. */
export interface PlannedRow {
  arm: Arm;
  seed: number;
  job: string;
  /** "<experiment>/<arm>" when the row is another experiment's arm (a reused one). */
  reusedFrom?: string;
}

export interface Plan {
  experiment: ExperimentConfig;
  /** Every job, each after the job it starts from. */
  jobs: PlannedJob[];
  /** The experiment's arm × seed rows, arm by arm in config order. */
  rows: PlannedRow[];
}

export function runDirOf(runsDir: string, exp: string, arm: string, seed: number): string {
  return path.join(runsDir, exp, arm, `s${seed}`);
}

export function jobDir(runsDir: string, job: Pick<PlannedJob, 'exp' | 'arm' | 'seed'>): string {
  return runDirOf(runsDir, job.exp.name, job.arm.name, job.seed);
}

/** Whether the job's run has finished (its summary.json is written last). */
export function jobFinished(runsDir: string, job: Pick<PlannedJob, 'exp' | 'arm' | 'seed'>): boolean {
  return existsSync(path.join(jobDir(runsDir, job), 'summary.json'));
}

/** The experiment and arm that train `arm`: itself, or the end of its reuse chain. */
export function trainedAt(exp: ExperimentConfig, arm: Arm): { exp: ExperimentConfig; arm: Arm } {
  if (!arm.reuse) return { exp, arm };
  const src = arm.reuse.experiment;
  return trainedAt(
    src,
    src.arms.find((a) => a.name === arm.reuse!.arm)!,
  );
}

/** Where arm `name` of `exp` trains and keeps its records: a reused arm's are in its source experiment's run directory. */
/** The arm at the root of `arm`'s initFrom chain (through reused arms), or "scratch" when it starts from a random LM. */
export function startingPoint(exp: ExperimentConfig, arm: Arm): string {
  let at = trainedAt(exp, arm);
  if (!at.arm.initFrom) return 'scratch';
  for (let hops = 0; at.arm.initFrom && hops < 100; hops++) {
    const next = at.exp.arms.find((a) => a.name === at.arm.initFrom);
    if (!next) return at.arm.initFrom;
    at = trainedAt(at.exp, next);
  }
  return at.arm.name;
}

export function armRunDir(runsDir: string, exp: ExperimentConfig, name: string, seed: number): string {
  const arm = exp.arms.find((a) => a.name === name);
  if (!arm) return runDirOf(runsDir, exp.name, name, seed);
  return jobDir(runsDir, { ...trainedAt(exp, arm), seed });
}

export function planExperiment(exp: ExperimentConfig): Plan {
  const jobs = new Map<string, PlannedJob>();
  const rows: PlannedRow[] = [];
  for (const arm of exp.arms) {
    for (const seed of exp.seeds) {
      const job = resolve(exp, arm, seed);
      const source = trainedAt(exp, arm);
      rows.push({
        arm,
        seed,
        job: job.id,
        ...(arm.reuse ? { reusedFrom: `${source.exp.name}/${source.arm.name}` } : {}),
      });
    }
  }
  return { experiment: exp, jobs: [...jobs.values()], rows };

  /** The job that trains `arm` × seed, added after the jobs it starts from. */
  function resolve(e: ExperimentConfig, a: Arm, seed: number): PlannedJob {
    const at = trainedAt(e, a);
    const id = `${at.exp.name}/${at.arm.name}/s${seed}`;
    const known = jobs.get(id);
    if (known) return known;
    const source = at.arm.initFrom
      ? resolve(
          at.exp,
          at.exp.arms.find((x) => x.name === at.arm.initFrom)!,
          seed,
        )
      : null;
    const job: PlannedJob = { id, exp: at.exp, arm: at.arm, seed, after: source?.id ?? null };
    jobs.set(id, job);
    return job;
  }
}

/**
 * The plan's jobs a run needs, in plan order: every row's, and the job each one that will train
 * (`willTrain`) starts from. A finished job is read back from its record alone, so the arms
 * before it in its initFrom chain need neither records nor training (a kept reference whose first
 * stage was not kept, say).
 */
export function neededJobs(plan: Plan, willTrain: (job: PlannedJob) => boolean): PlannedJob[] {
  const byId = new Map(plan.jobs.map((j) => [j.id, j]));
  const need = new Set<string>();
  const visit = (id: string) => {
    if (need.has(id)) return;
    need.add(id);
    const job = byId.get(id)!;
    if (job.after && willTrain(job)) visit(job.after);
  };
  plan.rows.forEach((r) => visit(r.job));
  return plan.jobs.filter((j) => need.has(j.id));
}

/** The jobs among `jobs` that no row of the plan shows: what a row's job starts from, here or in a reused arm's experiment. */
export function jobsWithoutRow(plan: Plan, jobs: PlannedJob[]): PlannedJob[] {
  const shown = new Set(plan.rows.map((r) => r.job));
  return jobs.filter((j) => !shown.has(j.id));
}
