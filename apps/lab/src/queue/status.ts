/**
 * `telepath queue status`: where each job of an experiment's plan stands in the queue — waiting
 * (for a worker, or for the job it starts from), active (which worker, which step, read from the
 * run's metrics), completed, failed (with its error) — plus the plan's jobs that were never queued
 * because their record was already finished.
 */
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { jobDir, type Plan } from '../experiment/plan.js';
import { lastStep } from '../commands/status.js';
import { QUEUE_NAME } from './connection.js';

export type QueueState = 'waiting' | 'active' | 'completed' | 'failed';

export interface QueueJobState {
  id: string;
  state: QueueState | 'finished, not queued' | 'not queued';
  detail: string;
}

export interface QueueStatus {
  counts: Record<QueueState, number>;
  jobs: QueueJobState[];
}

export async function planQueueStatus(connection: Redis, plan: Plan, runsDir: string): Promise<QueueStatus> {
  const queue = new Queue(QUEUE_NAME, { connection });
  const counts: Record<QueueState, number> = { waiting: 0, active: 0, completed: 0, failed: 0 };
  const jobs: QueueJobState[] = [];
  try {
    for (const planned of plan.jobs) {
      const dir = jobDir(runsDir, planned);
      const job = await queue.getJob(planned.id);
      if (!job) {
        jobs.push({
          id: planned.id,
          state: existsSync(path.join(dir, 'summary.json')) ? 'finished, not queued' : 'not queued',
          detail: '',
        });
        continue;
      }
      const raw = await job.getState();
      const state: QueueState = raw === 'active' || raw === 'completed' || raw === 'failed' ? raw : 'waiting';
      counts[state]++;
      let detail = '';
      if (raw === 'waiting-children') detail = `after ${planned.after ?? 'the job before it'}`;
      if (state === 'active')
        detail = [job.processedBy ? `worker ${job.processedBy}` : '', (await lastStep(dir, planned.arm)) ?? 'starting']
          .filter(Boolean)
          .join(', ');
      if (state === 'failed') detail = job.failedReason ?? '';
      if (state === 'completed')
        detail =
          typeof job.returnvalue?.accuracy === 'number' ? `${(100 * job.returnvalue.accuracy).toFixed(1)} %` : '';
      jobs.push({ id: planned.id, state, detail });
    }
    return { counts, jobs };
  } finally {
    await queue.close();
  }
}

export function formatQueueStatus(name: string, s: QueueStatus): string {
  const head = `${name}: ${s.counts.waiting} waiting, ${s.counts.active} active, ${s.counts.completed} completed, ${s.counts.failed} failed`;
  const width = Math.max(...s.jobs.map((j) => j.id.length));
  return [head, ...s.jobs.map((j) => `  ${j.id.padEnd(width)}  ${j.state.padEnd(9)}  ${j.detail}`.trimEnd())].join(
    '\n',
  );
}
