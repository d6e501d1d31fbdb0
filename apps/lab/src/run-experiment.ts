/**
 * `telepath run`: every arm × seed of an experiment, in order, then the comparison table.
 * Finished arms are read back from their records; unfinished ones resume.
 */
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { writeFileAtomic } from '@telepath/core';
import { loadTaskData, type TaskData } from './data.js';
import type { Arm, ExperimentConfig } from './experiment.js';
import { armRunDir, runArm, runDirOf, type ArmSummary } from './run-arm.js';
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
      const r = arm.reuse ? await runReused(exp, arm, seed, data, o) : await runArm({ exp, arm, seed, data, runsDir: o.runsDir, force: o.force, shouldStop: o.shouldStop, quiet: o.quiet });
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

/**
 * A reused arm: its source arm (and the arms that arm starts from) run in the source experiment's
 * run directory unless finished there — never forced from here — and the result is shown under this
 * experiment's arm name, with a copy of the summary in this experiment's directory so `report` finds it.
 */
async function runReused(exp: ExperimentConfig, arm: Arm, seed: number, data: TaskData, o: RunExperimentOptions): Promise<ArmSummary | 'interrupted'> {
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
async function runWithSources(exp: ExperimentConfig, name: string, seed: number, data: TaskData, o: RunExperimentOptions): Promise<ArmSummary | 'interrupted'> {
  const arm = exp.arms.find((a) => a.name === name)!;
  if (arm.reuse) return runWithSources(arm.reuse.experiment, arm.reuse.arm, seed, data, o);
  if (arm.initFrom && !existsSync(path.join(armRunDir(o.runsDir, exp, arm.initFrom, seed), 'summary.json'))) {
    const dep = await runWithSources(exp, arm.initFrom, seed, data, o);
    if (dep === 'interrupted') return dep;
  }
  return runArm({ exp, arm, seed, data, runsDir: o.runsDir, shouldStop: o.shouldStop, quiet: o.quiet });
}
