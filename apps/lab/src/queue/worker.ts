/**
 * `telepath worker`: takes arm jobs from the queue and runs each with runArm — the same code as
 * `telepath run`, writing the usual records under a runs folder every worker shares.
 *
 * BullMQ renews the job's lock while it trains (the training loop yields every step). A worker that
 * dies (kill -9, power off) stops renewing; once the lock expires another worker's stalled-job check
 * hands the job on, and runArm resumes it from the last checkpoint. A finished arm is read back,
 * never trained again, and the run lock (run-lock.ts) keeps two processes from training one
 * directory. A job whose arm throws fails once, its error kept for `queue status`. Ctrl-C stops
 * after the current step with a checkpoint and hands the job back to the queue.
 */
import { rm } from 'node:fs/promises';
import * as os from 'node:os';
import { DelayedError, Queue, UnrecoverableError, Worker, type Job } from 'bullmq';
import { loadTaskData, type TaskData } from '../experiment/data.js';
import { armData } from '../experiment/arm-settings.js';
import type { ExperimentConfig } from '../experiment/experiment.js';
import { jobDir } from '../experiment/plan.js';
import { runArm } from '../running/run-arm.js';
import { recordReusedRow, type ReusedRowRef } from '../running/run-experiment.js';
import { liveLockHolder, lockFileOf } from '../running/run-lock.js';
import { reusedRowsKey, type ArmJobData } from './add.js';
import { checkQueueFormat, openRedis, QUEUE_FORMAT, QUEUE_NAME, safeUrl } from './connection.js';

export interface QueueWorkerOptions {
  redisUrl: string;
  runsDir: string;
  concurrency: number;
  /** How long a job's lock lasts without renewal: a dead worker's job is handed on after about this long (twice at most). */
  lockMs: number;
  exitWhenIdle: boolean;
  quiet: boolean;
  shouldStop: () => boolean;
  log: (line: string) => void;
}

/**
 * A job handed on after its worker stopped renewing its lock: a run lock that worker's machine left
 * (power loss) cannot be checked from here and would wait for ever, so it is removed — the queue's
 * lock says that worker no longer holds the job. A lock of this machine is left to run-lock.ts,
 * which takes over a dead process's lock and waits for a live one.
 */
async function dropForeignLock(dir: string): Promise<void> {
  const holder = await liveLockHolder(dir);
  if (holder && holder.host !== os.hostname()) await rm(lockFileOf(dir), { force: true });
}

/** Runs until stopped (Ctrl-C), or with exitWhenIdle until no job is waiting or active; resolves with the exit code. */
export async function runQueueWorker(o: QueueWorkerOptions): Promise<number> {
  const connection = await openRedis(o.redisUrl);
  await checkQueueFormat(connection, o.redisUrl, false);
  const name = `${os.hostname()} pid ${process.pid}`;
  const say = (line: string) => o.log(`[worker ${name}] ${line}`);
  let data: { key: string; value: Promise<TaskData> } | null = null; // the last experiment's data, kept for its next arm
  const worker = new Worker<ArmJobData>(QUEUE_NAME, processJob, {
    connection,
    name,
    concurrency: o.concurrency,
    lockDuration: o.lockMs,
    stalledInterval: o.lockMs,
    maxStalledCount: 5, // a job whose worker died this many times fails
    autorun: false,
  });
  let outage = false;
  connection.on('reconnecting', () => {
    if (!outage) say(`lost Redis at ${safeUrl(o.redisUrl)}; reconnecting — training goes on`);
    outage = true;
  });
  // A job whose lock could not be renewed (this process held up past the lock, or Redis gone that
  // long) may be another worker's by now: it stops here after the current step (runs are
  // deterministic, so an overlapping step of the two writes the same checkpoint) and is handed back.
  const lostLocks = new Set<string>();
  worker.on('lockRenewalFailed', (ids: string[]) => {
    for (const id of ids.filter((x) => !lostLocks.has(x)))
      say(
        `${id}: could not renew its lock (held up past --lock-seconds?); stopping it here, another worker resumes it from its checkpoint`,
      );
    for (const id of ids) lostLocks.add(id);
  });
  worker.on(
    'error',
    (e) => outage || /could not renew lock|Missing lock for job/.test(e.message) || say(`queue error: ${e.message}`),
  );
  connection.on('ready', () => {
    if (outage) say('Redis is back');
    outage = false;
  });
  worker.on('failed', (job, e) => job && !(e instanceof DelayedError) && say(`${job.id} failed: ${e.message}`));
  const queue = new Queue(QUEUE_NAME, { connection });
  queue.on('error', () => {}); // its connection's outages are reported above
  say(`taking jobs from ${safeUrl(o.redisUrl)}, records under ${o.runsDir}`);
  const running = worker.run();
  try {
    for (let idleChecks = 0; ;) {
      await new Promise((r) => setTimeout(r, 500));
      if (o.shouldStop()) break;
      if (!o.exitWhenIdle) continue;
      const counts = await queue.getJobCounts('wait', 'active', 'delayed', 'prioritized', 'waiting-children');
      idleChecks = Object.values(counts).every((n) => n === 0) ? idleChecks + 1 : 0;
      if (idleChecks >= 2) break;
    }
    await worker.close(); // waits for the jobs in hand (after Ctrl-C they stop at the next step)
    await running;
    say(o.shouldStop() ? 'stopped' : 'no job waiting or active; exiting');
    return o.shouldStop() ? 130 : 0;
  } finally {
    await queue.close();
    connection.disconnect();
  }

  /** Back to the queue for any worker (it resumes from the checkpoint); this worker takes no more. */
  async function handBack(job: Job<ArmJobData>, token: string | undefined, why: string): Promise<never> {
    worker.close().catch(() => {}); // awaited by the main loop
    await job.moveToDelayed(Date.now(), token);
    say(`${job.id}: ${why}`);
    throw new DelayedError();
  }

  async function processJob(job: Job<ArmJobData>, token?: string) {
    const d = job.data;
    if (d?.format !== QUEUE_FORMAT)
      throw new UnrecoverableError(
        `job ${job.id} was queued by another version of telepath (job format ${d?.format}; this one reads ${QUEUE_FORMAT})`,
      );
    if (o.shouldStop()) return handBack(job, token, 'handed back to the queue (stopping)');
    const exp: ExperimentConfig = d.experiment;
    const arm = exp.arms.find((a) => a.name === d.arm)!;
    const takenOver = job.attemptsStarted > 1 || job.stalledCounter > 0;
    say(`${job.id}: ${takenOver ? 'taken over from a worker that stopped; resuming from its checkpoints' : 'started'}`);
    if (takenOver) await dropForeignLock(jobDir(o.runsDir, { exp, arm, seed: d.seed }));
    const armSettings = armData(exp, arm); // the experiment's data with the arm's own settings over it
    const key = JSON.stringify([exp.task, armSettings]);
    const loadData = () => {
      if (data?.key !== key) data = { key, value: loadTaskData(exp.task, armSettings) };
      return data.value;
    };
    const lockLost = () => lostLocks.has(job.id!);
    const r = await runArm({
      exp,
      arm,
      seed: d.seed,
      loadData,
      runsDir: o.runsDir,
      shouldStop: () => o.shouldStop() || lockLost(),
      quiet: o.quiet,
      warn: say,
    });
    if (r === 'interrupted' && lockLost()) {
      lostLocks.delete(job.id!);
      await job.moveToDelayed(Date.now(), token); // throws when another worker holds it now: then it is theirs
      throw new DelayedError();
    }
    if (r === 'interrupted') return handBack(job, token, 'stopped with a checkpoint; handed back to the queue');
    for (const ref of await connection.smembers(reusedRowsKey(job.id!)))
      await recordReusedRow(o.runsDir, JSON.parse(ref) as ReusedRowRef, r);
    say(`${job.id}: accuracy ${(100 * r.accuracy).toFixed(1)}% ± ${(100 * r.stderr).toFixed(1)} (n=${r.total})`);
    return { accuracy: r.accuracy, stderr: r.stderr, total: r.total };
  }
}
