/**
 * `telepath run`: every arm × seed of an experiment, in order, then the comparison table.
 * Finished arms are read back from their records; unfinished ones resume.
 */
import * as path from 'node:path';
import { writeFileAtomic } from '@telepath/core';
import { loadTaskData } from './data.js';
import type { ExperimentConfig } from './experiment.js';
import { runArm, type ArmSummary } from './run-arm.js';
import { aggregate, tableCsv, tableMarkdown } from './table.js';

export interface RunExperimentOptions { runsDir: string; force?: boolean; shouldStop?: () => boolean; quiet?: boolean; log?: (line: string) => void }

export async function runExperiment(exp: ExperimentConfig, o: RunExperimentOptions): Promise<{ results: ArmSummary[]; interrupted: boolean }> {
  const log = o.log ?? ((l: string) => console.error(l));
  log(`[telepath] ${exp.name}: task ${exp.task}, ${exp.arms.length} arm(s) × ${exp.seeds.length} seed(s)`);
  const data = await loadTaskData(exp.task, exp.data);
  log(`[telepath] data: ${data.train.length} train, ${data.test.length} test examples`);
  const results: ArmSummary[] = [];
  for (const arm of exp.arms) {
    for (const seed of exp.seeds) {
      const r = await runArm({ exp, arm, seed, data, runsDir: o.runsDir, force: o.force, shouldStop: o.shouldStop, quiet: o.quiet });
      if (r === 'interrupted') {
        log(`[telepath] interrupted during ${arm.name} s${seed}; checkpoints are saved — run the same command again to resume`);
        return { results, interrupted: true };
      }
      log(`[telepath] ${arm.name} s${seed}: accuracy ${(100 * r.accuracy).toFixed(1)}% ± ${(100 * r.stderr).toFixed(1)} (n=${r.total})`);
      results.push(r);
    }
  }
  const rows = aggregate(results);
  const dir = path.join(o.runsDir, exp.name);
  await writeFileAtomic(path.join(dir, 'table.md'), tableMarkdown(rows) + '\n');
  await writeFileAtomic(path.join(dir, 'table.csv'), tableCsv(rows));
  return { results, interrupted: false };
}
