/**
 * Experiment kinds: experiments that are not "arms × seeds of LM methods". A config with a
 * top-level `"kind"` is dispatched here instead of to the arm runner; every other key belongs to
 * the kind (validated by its owner, unknown keys rejected). The lab stays the only place that
 * knows every method: a kind is a literal entry of this table, never a registration.
 *   thought-comm-synthetic  ThoughtComm part 1, identification on synthetic data
 *                           (config parsed and run by @telepath/thought-comm)
 *   thought-comm-agents     ThoughtComm part 2, agents that share thoughts on a task: the lab
 *                           owns "task" and "data" (loaded and scored as for arms), the rest is
 *                           @telepath/thought-comm's AgentsExperimentConfig; `agentsFrom`
 *                           folders are relative to the runs folder (agents-from.ts checks them)
 * Records: <runs>/<name>/… (the kind's run records) and <runs>/<name>/table.md.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { applySetOverrides, writeFileAtomic } from '@telepath/core';
import {
  agentsJson,
  agentsRows,
  agentsTableMarkdown,
  agentsTableText,
  formatTable,
  jsonReport,
  parseAgentsExperimentConfig,
  parseSyntheticExperimentConfig,
  runAgentsExperiment,
  runSyntheticExperiment,
} from '@telepath/thought-comm';
import { checkTaskName, loadTaskData, parseData } from './data.js';
import { rewardFromTask } from '../running/build-arm.js';
import { checkAgentRecords } from './agents-from.js';
import { agentsBootstrap } from '../reports/agents-paired.js';

export interface KindRunOptions {
  /** The config file (for error messages). */
  file: string;
  runsDir: string;
  json: boolean;
  force: boolean;
  shouldStop: () => boolean;
  log: (line: string) => void;
}

/** What `telepath run` prints: the table (text) or the JSON, and whether it was interrupted. */
export interface KindResult {
  text: string;
  json: object;
  interrupted: boolean;
}

interface Kind {
  description: string;
  run(raw: Record<string, unknown>, o: KindRunOptions): Promise<KindResult>;
}

export const EXPERIMENT_KINDS: Record<string, Kind> = {
  'thought-comm-synthetic': {
    description:
      'ThoughtComm part 1: MCC, support F1 and block R² of the sparse-Jacobian autoencoder on synthetic data',
    async run(raw, o) {
      const c = parseSyntheticExperimentConfig(raw);
      const outDir = path.join(o.runsDir, c.id);
      if (o.force) await fs.rm(outDir, { recursive: true, force: true });
      o.log(
        `[telepath] ${c.id}: ${c.arms.length} arms × ${c.stateDims.length} sizes × ${c.seeds.length} seeds; records ${outDir}`,
      );
      const result = await runSyntheticExperiment(c, { outDir, reuse: true, onProgress: o.log });
      const report = jsonReport(result);
      const text = formatTable(result);
      await writeFileAtomic(path.join(outDir, 'table.md'), '```\n' + text + '\n```\n');
      await writeFileAtomic(path.join(outDir, 'experiment', 'report.json'), JSON.stringify(report, null, 2) + '\n');
      return { text, json: report, interrupted: false };
    },
  },
  'thought-comm-agents': {
    description:
      'ThoughtComm part 2: agents (core LMs) that share thoughts through prefixes, against one agent and a majority vote',
    async run(raw, o) {
      const { task: taskName, data: dataRaw, ...rest } = raw;
      const task = checkTaskName(taskName, `${o.file}: "task"`);
      const c = parseAgentsExperimentConfig(rest, o.file);
      const dataConfig = parseData(task, dataRaw ?? {}, o.file);
      if (c.agentsFrom.length)
        await checkAgentRecords({ ...c, runsDir: o.runsDir, task, data: dataConfig, file: o.file });
      const data = await loadTaskData(task, dataConfig);
      const outDir = path.join(o.runsDir, c.name);
      o.log(
        `[telepath] ${c.name}: task ${task}, ${data.train.length} train / ${data.test.length} test, ${c.agents} agents × ${c.seeds.length} seed(s); records ${outDir}`,
      );
      const r = await runAgentsExperiment(
        c,
        {
          train: data.train,
          test: data.test,
          isCorrect: rewardFromTask(data.task),
          hashes: data.hashes,
          vocabulary: data.vocabulary,
        },
        { outDir, recordsDir: o.runsDir, force: o.force, log: o.log, shouldStop: o.shouldStop },
      );
      const rows = agentsRows(r.seeds);
      const found = await agentsBootstrap(
        outDir,
        r.seeds.map((s) => s.seed),
      );
      const bootstrap = found.size ? found : undefined;
      if (rows.length)
        await writeFileAtomic(path.join(outDir, 'table.md'), agentsTableMarkdown(rows, r.seeds, bootstrap) + '\n');
      return {
        text: rows.length ? agentsTableText(rows, bootstrap) : '(no finished seeds)',
        json: agentsJson(c.name, r.seeds, bootstrap),
        interrupted: r.interrupted,
      };
    },
  },
};

/** The raw config and its kind when the file names one (null: an arms experiment). */
export async function readKind(
  file: string,
  sets: string[],
): Promise<{ kind: string; raw: Record<string, unknown> } | null> {
  let raw: Record<string, unknown>;
  try {
    raw = JSON.parse(await fs.readFile(file, 'utf8')) as Record<string, unknown>;
  } catch {
    return null; // loadExperiment reports unreadable files and bad JSON
  }
  if (raw === null || typeof raw !== 'object' || !('kind' in raw)) return null;
  const { kind, ...rest } = raw;
  if (typeof kind !== 'string' || !(kind in EXPERIMENT_KINDS)) {
    throw new Error(
      `${path.basename(file)}: unknown experiment kind ${JSON.stringify(kind)}. Expected one of: ${Object.keys(EXPERIMENT_KINDS).join(', ')} (or no "kind" for an arms experiment)`,
    );
  }
  return { kind, raw: applySetOverrides(rest, sets) };
}
