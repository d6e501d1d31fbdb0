/**
 * ThoughtComm agents loaded from kept run records (`agentsFrom`): the records must have been
 * trained on this experiment's task and data, written the same way and scored on the same test
 * questions, so the agents' round 0 is the references' own accuracy. Settings that only shape
 * the training stream may differ (the agents are not trained here).
 */
import { existsSync, promises as fs } from 'node:fs';
import * as path from 'node:path';
import { agentRecordDirs } from '@telepath/thought-comm';

/** Data settings that change only the training batches, not how a question is written or which questions are tested. */
const TRAINING_ONLY_DATA_KEYS = new Set(['trainCount', 'warmupShare', 'warmupSteps', 'factOps', 'singleSolutionShare']);

/** Throws, naming the record and the keys, when a record's task or data differs from the experiment's. */
export async function checkAgentRecords(o: {
  agentsFrom: string[];
  agents: number;
  seeds: number[];
  runsDir: string;
  task: string;
  data: object;
  file: string;
}): Promise<void> {
  const dirs = new Set(o.seeds.flatMap((s) => agentRecordDirs(o.agentsFrom, o.agents, s, o.runsDir)));
  for (const dir of dirs) {
    const file = path.join(dir, 'config.resolved.json');
    if (!existsSync(file))
      throw new Error(`${o.file}: agentsFrom ${dir} is not a finished run record (no config.resolved.json)`);
    const rec = JSON.parse(await fs.readFile(file, 'utf8')) as { task?: string; data?: Record<string, unknown> };
    if (rec.task !== o.task)
      throw new Error(`${o.file}: agentsFrom ${dir} was trained on task ${rec.task}, this experiment is ${o.task}`);
    const ours = o.data as Record<string, unknown>;
    const keys = new Set([...Object.keys(ours), ...Object.keys(rec.data ?? {})]);
    const differ = [...keys].filter(
      (k) => !TRAINING_ONLY_DATA_KEYS.has(k) && JSON.stringify(ours[k]) !== JSON.stringify(rec.data?.[k]),
    );
    if (differ.length)
      throw new Error(
        `${o.file}: agentsFrom ${dir} was trained on other data: ${differ.map((k) => `data.${k} ${JSON.stringify(rec.data?.[k])} there, ${JSON.stringify(ours[k])} here`).join('; ')}`,
      );
  }
}
