/**
 * `telepath status <experiment.json>`: where every arm × seed of an experiment stands, read from
 * its run records and locks (no data, no backend): done (its accuracy), training (the process and
 * its last logged step), stopped (its last logged step — the same `telepath run` resumes it), or
 * not started. A reused arm is looked up in the experiment that trains it. Below the rows, the arms a
 * `telepath run` would train first though no row shows them: what an unfinished arm starts from.
 */
import { existsSync, promises as fs } from 'node:fs';
import { hostname } from 'node:os';
import * as path from 'node:path';
import { readJsonFile } from '@telepath/core';
import { parseArgs } from 'node:util';
import type { Arm, ExperimentConfig } from '../experiment/experiment.js';
import { loadExperiment } from '../experiment/load-experiment.js';
import {
  jobDir,
  jobFinished,
  jobsWithoutRow,
  neededJobs,
  planExperiment,
  type PlannedJob,
  type PlannedRow,
} from '../experiment/plan.js';
import { onlyArms, onlyArmsOfEach, parseArmList } from '../experiment/only-arms.js';
import { PARTS_DIR } from '../evaluation/finished-parts.js';
import { methodById } from '../experiment/methods.js';
import { readKind } from '../experiment/kinds.js';
import type { ArmSummary } from '../running/arm-summary.js';
import { formatSeconds } from '../running/progress.js';
import { lockState } from '../running/run-lock.js';
import { loadSweep } from '../experiment/sweep.js';
import { printHelp, usageError } from './command-args.js';

export type ArmStateName = 'done' | 'training' | 'stale lock' | 'stopped' | 'not started';

export interface ArmState {
  arm: string;
  seed: number;
  state: ArmStateName;
  /** Accuracy when done, the last logged step otherwise; where a reused arm trains. */
  detail: string;
}

const HELP = `Usage: telepath status <experiment.json> [--set key=value ...] [--arms a,b] [--runs DIR]

Where every arm × seed of the experiment stands, from its run records and locks:
  done          finished (accuracy ± s.e.)
  training      a live process holds its lock (pid, last logged step of the phase, the time left in
                that phase at its recent step times, the phases still to train after it)
  stale lock    its lock's process is gone (exited, pid reused, machine restarted, or no heartbeat
                from another host for 10 min); the next telepath run takes it over and resumes
  stopped       started and interrupted; the same telepath run resumes it from its checkpoint
  not started
A reused arm is looked up in the experiment that trains it. A sweep lists each of its experiments.
Below the rows: the arms that telepath run with the same --set and --arms would train first, though no
row shows them (what an unfinished arm starts from, initFrom, here or in a reused arm's experiment).
  --arms a,b   only these arms, as telepath run --arms picks them`;

export async function statusCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      set: { type: 'string', multiple: true, default: [] },
      runs: { type: 'string', default: 'runs' },
      arms: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) return printHelp(HELP);
  if (positionals.length !== 1)
    return usageError('status', `expected one experiment file, got ${positionals.length}`, HELP);
  const file = positionals[0];
  if (await readKind(file, values.set!)) {
    console.error(
      `telepath status: ${file} is a "kind" experiment; status reads arm experiments (its records are under ${values.runs}/<name>/)`,
    );
    return 2;
  }
  const cut = values.arms === undefined ? null : parseArmList(values.arms);
  const sweep = await loadSweep(file, values.set);
  const loaded = sweep ? sweep.experiments : [await loadExperiment(file, values.set)];
  const experiments = !cut ? loaded : sweep ? onlyArmsOfEach(loaded, cut) : [onlyArms(loaded[0], cut)];
  const runsDir = path.resolve(values.runs!);
  for (const exp of experiments) {
    console.log(formatStatus(exp.name, await experimentStatus(exp, runsDir), await trainedFirst(exp, runsDir)));
  }
  return 0;
}

export async function experimentStatus(exp: ExperimentConfig, runsDir: string): Promise<ArmState[]> {
  const plan = planExperiment(exp);
  const jobs = new Map(plan.jobs.map((j) => [j.id, j]));
  const rows = [...plan.rows].sort((a, b) => exp.seeds.indexOf(a.seed) - exp.seeds.indexOf(b.seed)); // seed by seed, arms in order
  return Promise.all(rows.map((row) => armState(row, jobs.get(row.job)!, runsDir)));
}

/**
 * The jobs a `telepath run` of `exp` needs though no row shows them: the arms an unfinished arm
 * starts from (initFrom, at its seed), in this experiment or a reused arm's source, each with its
 * state and the arms that start from it; finished ones too, whose weights a run reads. Empty when
 * every row is finished (a finished arm is read back from its record alone).
 */
export async function trainedFirst(exp: ExperimentConfig, runsDir: string): Promise<ArmState[]> {
  const plan = planExperiment(exp);
  const needed = neededJobs(plan, (job) => !jobFinished(runsDir, job));
  const label = (job: PlannedJob) => `${job.exp === exp ? '' : `${job.exp.name}/`}${job.arm.name}`;
  const hidden = jobsWithoutRow(plan, needed);
  return Promise.all(
    hidden.map(async (job) => {
      const state = await armState({ arm: job.arm, seed: job.seed, job: job.id }, job, runsDir);
      const next = needed.filter((j) => j.after === job.id).map((j) => `${label(j)} s${j.seed}`);
      const startsFrom = `${next.join(', ')} start${next.length === 1 ? 's' : ''} from it`;
      return { ...state, arm: label(job), detail: state.detail ? `${state.detail}; ${startsFrom}` : startsFrom };
    }),
  );
}

async function armState(row: PlannedRow, job: PlannedJob, runsDir: string): Promise<ArmState> {
  const { arm, seed } = row;
  const dir = jobDir(runsDir, job);
  const where = row.reusedFrom ? ` (reused: ${row.reusedFrom})` : '';
  const summaryFile = path.join(dir, 'summary.json');
  if (existsSync(summaryFile)) {
    const s = await readJsonFile<ArmSummary>(summaryFile);
    return {
      arm: arm.name,
      seed,
      state: 'done',
      detail: `${(100 * s.accuracy).toFixed(1)} % ± ${(100 * s.stderr).toFixed(1)}${where}`,
    };
  }
  const lock = await lockState(dir);
  const step = await lastStep(dir, job.arm);
  if (lock.state === 'live')
    return {
      arm: arm.name,
      seed,
      state: 'training',
      detail: `pid ${lock.holder.pid}${lock.holder.host === hostname() ? '' : ` on ${lock.holder.host}`} since ${lock.holder.since}${step ? `, ${step}` : ''}${where}`,
    };
  if (lock.state === 'stale')
    return { arm: arm.name, seed, state: 'stale lock', detail: `${lock.why}${step ? `; ${step}` : ''}${where}` };
  if (step) return { arm: arm.name, seed, state: 'stopped', detail: `${step}${where}` };
  return { arm: arm.name, seed, state: 'not started', detail: where.trim() };
}

/** "sft step 125 / 200" from the last training line of metrics.jsonl, or null before any. */
export async function lastStep(dir: string, arm: Arm): Promise<string | null> {
  let text: string;
  try {
    text = await fs.readFile(path.join(dir, 'metrics.jsonl'), 'utf8');
  } catch {
    return null;
  }
  const lines = text.trim().split('\n').reverse();
  for (const line of lines) {
    let rec: Record<string, unknown>;
    try {
      rec = JSON.parse(line) as Record<string, unknown>;
    } catch {
      continue; // a line cut by a crash
    }
    const lossKey = Object.keys(rec).find((k) => k.endsWith('/loss'));
    if (!lossKey || typeof rec.step !== 'number') continue;
    const phase = lossKey.slice(0, -'/loss'.length);
    const phases = methodById(arm.method, `arm ${arm.name}`).phases(arm.config);
    const total = phases.find((p) => p.phase === phase)?.steps;
    const evaluating = rec.step === total && phases[phases.length - 1].phase === phase;
    if (evaluating)
      return `${phase} step ${rec.step} / ${total} (training done; evaluating${await finishedParts(dir)})`;
    const left = total ? phaseTimeLeft(lines, phase, total - rec.step) : '';
    return `${phase} step ${rec.step}${total ? ` / ${total}` : ''}${left}${laterPhases(phases, phase)}`;
  }
  return null;
}

/**
 * "; then stage2, stage3 (2,500 steps)": the phases still to train after `phase`, '' after the
 * last. Their time is not estimated: a later phase's step time differs (a Coconut stage replaces
 * more of the chain, a GRPO step samples).
 */
function laterPhases(phases: { phase: string; steps: number }[], phase: string): string {
  const at = phases.findIndex((p) => p.phase === phase);
  const later = at < 0 ? [] : phases.slice(at + 1);
  if (later.length === 0) return '';
  const steps = later.reduce((a, p) => a + p.steps, 0);
  return `; then ${later.map((p) => p.phase).join(', ')} (${steps.toLocaleString('en-US')} steps)`;
}

/**
 * ", ≈ 2m21s left in sft (141 ms a step)": the phase's remaining steps at the median of its last
 * 20 logged step times (`<phase>/ms`); '' when none is logged. `lines` run newest first.
 */
function phaseTimeLeft(lines: string[], phase: string, stepsLeft: number): string {
  const times: number[] = [];
  for (const line of lines) {
    if (times.length === 20) break;
    try {
      const ms = (JSON.parse(line) as Record<string, unknown>)[`${phase}/ms`];
      if (typeof ms === 'number') times.push(ms);
    } catch {
      continue; // a line cut by a crash
    }
  }
  if (times.length === 0) return '';
  const median = times.sort((a, b) => a - b)[Math.floor(times.length / 2)];
  return `, ≈ ${formatSeconds((stepsLeft * median) / 1000)} left in ${phase} (${Math.round(median)} ms a step)`;
}

export function formatStatus(name: string, states: ArmState[], first: ArmState[] = []): string {
  const count = (s: ArmStateName) => states.filter((x) => x.state === s).length;
  const stale = count('stale lock') ? `, ${count('stale lock')} with a stale lock` : '';
  const head = `${name}: ${count('done')}/${states.length} done, ${count('training')} training${stale}, ${count('stopped')} stopped, ${count('not started')} not started`;
  const width = Math.max(3, ...[...states, ...first].map((s) => s.arm.length));
  const line = (s: ArmState) =>
    `  ${s.arm.padEnd(width)}  s${String(s.seed).padEnd(3)} ${s.state.padEnd(11)}  ${s.detail}`.trimEnd();
  const before = first.length ? ['telepath run needs first (what the arms above start from):', ...first.map(line)] : [];
  return [head, ...states.map(line), ...before].join('\n');
}

/** ", finished: main, pass2" — the evaluation parts an interrupted evaluation resumes after (finished-parts.ts); '' for none. */
async function finishedParts(dir: string): Promise<string> {
  let files: string[];
  try {
    files = await fs.readdir(path.join(dir, PARTS_DIR));
  } catch {
    return '';
  }
  const keys = files.filter((f) => f.endsWith('.json')).map((f) => f.slice(0, -'.json'.length));
  return keys.length ? `, finished: ${keys.sort().join(', ')}` : '';
}
