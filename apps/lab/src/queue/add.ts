/**
 * `telepath queue add`: an experiment's plan (plan.ts) as BullMQ jobs, one per job of the plan, its
 * id the plan's ("<experiment>/<arm>/s<seed>", so adding twice adds nothing twice).
 *
 * A job that starts from another (initFrom) is added as the parent of that job in a BullMQ flow, so
 * it waits for it. A BullMQ job has at most one parent, so when a job already has one (a source
 * several arms start from), the new job becomes the parent of the top of that chain instead: those
 * arms then run one after another, still each after its source. A link is kept when a child fails
 * (ignoreDependencyOnFailure): the parent runs, and fails at once if its own source has no record.
 * Jobs whose record is finished in the runs folder are not added; failed ones are added again.
 */
import { FlowProducer, Queue, type Job } from 'bullmq';
import type { Redis } from 'ioredis';
import type { ExperimentConfig } from '../experiment/experiment.js';
import { jobDir, jobFinished, neededJobs, type Plan, type PlannedJob } from '../experiment/plan.js';
import { readReusedRow, recordReusedRow, reusedRowRef, type ReusedRowRef } from '../running/run-experiment.js';
import { QUEUE_FORMAT, QUEUE_NAME } from './connection.js';

/** What a job carries: everything a worker needs to run it, with no experiment files of its own. */
export interface ArmJobData {
  format: number;
  /** The experiment that trains the arm, as resolved when it was added. */
  experiment: ExperimentConfig;
  arm: string;
  seed: number;
  after: string | null;
}

/** A job fails once (its error kept); a crash (its worker gone) is retried by the stalled-job check instead. */
export const JOB_OPTIONS = { attempts: 1, removeOnComplete: false, removeOnFail: false } as const;

/** Redis set of the reused arms (of other experiments) that show a job's result: the worker writes their summaries. */
export const reusedRowsKey = (jobId: string) => `telepath:reused-rows:${jobId}`;

export interface AddResult {
  added: number;
  finished: number;
  alreadyQueued: number;
}

export async function enqueuePlan(connection: Redis, plan: Plan, runsDir: string): Promise<AddResult> {
  const queue = new Queue<ArmJobData>(QUEUE_NAME, { connection });
  const flow = new FlowProducer({ connection });
  const result: AddResult = { added: 0, finished: 0, alreadyQueued: 0 };
  const isFinished = (job: PlannedJob) => jobFinished(runsDir, job);
  try {
    for (const job of [...plan.jobs].reverse()) {
      const queued = await queue.getJob(job.id);
      if (queued && (await queued.getState()) === 'failed') await queued.remove({ removeChildren: false });
    }
    for (const job of neededJobs(plan, (j) => !isFinished(j))) {
      if (isFinished(job)) result.finished++;
      else if (await queue.getJob(job.id)) result.alreadyQueued++;
      else {
        await addJob(job);
        result.added++;
      }
    }
    // Reused arms of this experiment: their summaries now when the source has finished, else by the worker that finishes it.
    for (const row of plan.rows.filter((r) => r.reusedFrom)) {
      const ref = reusedRowRef(plan.experiment, row);
      const source = plan.jobs.find((j) => j.id === row.job)!;
      if (isFinished(source)) await recordReusedRow(runsDir, ref, await readReusedRow(jobDir(runsDir, source)));
      else await connection.sadd(reusedRowsKey(row.job), JSON.stringify(ref satisfies ReusedRowRef));
    }
    return result;
  } finally {
    await Promise.all([queue.close(), flow.close()]);
  }

  async function addJob(job: PlannedJob): Promise<void> {
    const data: ArmJobData = {
      format: QUEUE_FORMAT,
      experiment: job.exp,
      arm: job.arm.name,
      seed: job.seed,
      after: job.after,
    };
    const sourceJob =
      job.after && !isFinished(plan.jobs.find((j) => j.id === job.after)!) ? await topOfChain(job.after) : null;
    if (!sourceJob) {
      await queue.add(job.id, data, { jobId: job.id, ...JOB_OPTIONS });
      return;
    }
    await flow.add({
      name: job.id,
      queueName: QUEUE_NAME,
      data,
      opts: { jobId: job.id, ...JOB_OPTIONS },
      children: [
        {
          name: sourceJob.name,
          queueName: QUEUE_NAME,
          data: sourceJob.data,
          opts: { jobId: sourceJob.id, ...JOB_OPTIONS, ignoreDependencyOnFailure: true },
        },
      ],
    });
  }

  /** The job `id`, or the last job waiting (through parents) for it: the one a new dependent may wait for. */
  async function topOfChain(id: string): Promise<Job<ArmJobData> | null> {
    let job = await queue.getJob(id);
    while (job?.parent?.id) {
      const parent = await queue.getJob(job.parent.id);
      if (!parent) break;
      job = parent;
    }
    return job ?? null;
  }
}
