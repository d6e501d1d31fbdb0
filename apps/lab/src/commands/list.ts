/** `telepath list`: experiment configs, tasks and methods. */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { TASK_NAMES } from '../experiment/data.js';
import { taskHeuristics } from '@telepath/tasks';
import { HEURISTIC } from '../running/heuristic-arm.js';
import { EXPERIMENT_KINDS } from '../experiment/kinds.js';
import { METHODS, PLANNED_METHODS } from '../experiment/methods.js';

export async function listCommand(args: string[]): Promise<number> {
  if (args.includes('--help') || args.includes('-h')) {
    console.log(
      'Usage: telepath list [--experiments DIR]\nLists experiment configs (default experiments/), tasks and methods.',
    );
    return 0;
  }
  const i = args.indexOf('--experiments');
  const dir = i >= 0 ? args[i + 1] : 'experiments';
  let files: string[] = [];
  try {
    files = (await fs.readdir(dir)).filter((f) => f.endsWith('.json')).sort();
  } catch {
    // no experiments folder here
  }
  console.log(`experiments (${dir}/):`);
  for (const f of files) {
    let desc = '';
    try {
      desc = (JSON.parse(await fs.readFile(path.join(dir, f), 'utf8')) as { description?: string }).description ?? '';
    } catch (e) {
      desc = `(unreadable: ${(e as Error).message})`;
    }
    console.log(`  ${f.padEnd(36)} ${desc}`);
  }
  console.log(`tasks: ${TASK_NAMES.join(', ')}`);
  console.log('methods:');
  for (const [id, m] of Object.entries(METHODS)) console.log(`  ${id.padEnd(16)} ${m!.paper.title}`);
  for (const [id, issue] of Object.entries(PLANNED_METHODS)) console.log(`  ${id.padEnd(16)} (${issue})`);
  console.log(
    `  ${HEURISTIC.padEnd(16)} a task's fixed rule, no model or training: ${TASK_NAMES.map((t) => `${t} ${Object.keys(taskHeuristics(t)).join(' / ')}`).join('; ')}`,
  );
  console.log('experiment kinds ("kind" in a config):');
  for (const [id, k] of Object.entries(EXPERIMENT_KINDS)) console.log(`  ${id.padEnd(24)} ${k.description}`);
  return 0;
}
