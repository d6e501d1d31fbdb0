/**
 * One arm × one seed: build the tokenizer and LM, train every phase of the method with
 * checkpoints, evaluate, and write the run record under runs/<experiment>/<arm>/s<seed>/.
 * A finished run (summary.json present) is skipped unless forced; an unfinished one resumes from
 * its checkpoints; Ctrl-C stops after the current step with a checkpoint written.
 */
import { existsSync, promises as fs } from 'node:fs';
import * as path from 'node:path';
import {
  configDifferences,
  currentBackend,
  readCheckpoint,
  restoreCheckpoint,
  saveCheckpoint,
  encodeExample,
  Rng,
  RunRecord,
  TinyLm,
  lmConfig,
  runTokenizer,
  train,
  writeFileAtomic,
  writeLatentTrace,
  type Example,
  type LatentControl,
  type LatentMethod,
  type LmConfig,
  type MethodState,
  type RewardFn,
} from '@telepath/core';
import type { Task } from '@telepath/tasks';
import { loadTaskData, type TaskData } from './data.js';
import { evaluate } from './evaluate.js';
import { armDataConfig, type Arm, type ExperimentConfig } from './experiment.js';
import { methodById } from './methods.js';
import { Progress } from './progress.js';
import { acquireRunLock } from './run-lock.js';

export interface ArmSummary {
  experiment: string;
  arm: string;
  /** Position of the arm in the experiment config (reports keep this order). */
  armIndex: number;
  method: string;
  seed: number;
  accuracy: number;
  stderr: number;
  correct: number;
  total: number;
  reasoningLength: number;
  reasoningKind: string;
  msPerExample: number;
  trainSeconds: number;
  params: number;
  backend: string;
  /** Share of answers whose written reasoning the task judged sound, and the verdicts (CoT-like arms on tasks that check reasoning). */
  validReasoning?: number;
  reasoningVerdicts?: Record<string, number>;
  /** "<experiment>/<arm>" when this row is another experiment's arm (an arm with `reuse`). */
  reusedFrom?: string;
  /** Accuracy of the same arm with its latents replaced (latent methods only). */
  controls?: Record<string, { accuracy: number; stderr: number; correct: number; total: number }>;
}

export interface RunArmOptions {
  exp: ExperimentConfig;
  arm: Arm;
  seed: number;
  data: TaskData;
  runsDir: string;
  force?: boolean;
  shouldStop?: () => boolean;
  quiet?: boolean;
  /** Where notices go (a finished arm recorded with another config); default stderr. */
  warn?: (line: string) => void;
}

/** All the variables a trained arm ends with (see runArm). */
export const FINAL_CHECKPOINT = 'final.ckpt';

/** Extra positions beyond the longest encoded example (latent slots, markers, generation slack). */
const CONTEXT_MARGIN = 32;

export function runDirOf(runsDir: string, exp: string, arm: string, seed: number): string {
  return path.join(runsDir, exp, arm, `s${seed}`);
}

/** The experiment and arm that train `arm`: itself, or the end of its reuse chain. */
export function trainedAt(exp: ExperimentConfig, arm: Arm): { exp: ExperimentConfig; arm: Arm } {
  if (!arm.reuse) return { exp, arm };
  const src = arm.reuse.experiment;
  return trainedAt(src, src.arms.find((a) => a.name === arm.reuse!.arm)!);
}

/** Where arm `name` of `exp` trains and keeps its records: a reused arm's are in its source experiment's run directory. */
export function armRunDir(runsDir: string, exp: ExperimentConfig, name: string, seed: number): string {
  const arm = exp.arms.find((a) => a.name === name);
  if (!arm) return runDirOf(runsDir, exp.name, name, seed);
  const source = trainedAt(exp, arm);
  return runDirOf(runsDir, source.exp.name, source.arm.name, seed);
}

export async function runArm(o: RunArmOptions): Promise<ArmSummary | 'interrupted'> {
  const dir = runDirOf(o.runsDir, o.exp.name, o.arm.name, o.seed);
  if (!o.force && existsSync(path.join(dir, 'summary.json'))) return readFinished(o, dir);
  const lock = await acquireRunLock(dir, {
    shouldStop: o.shouldStop,
    onWait: (h) => o.quiet || console.error(`[telepath] ${o.arm.name} s${o.seed}: process ${h.pid} has been training ${dir} since ${h.since}; waiting for it`),
  });
  if (!lock) return 'interrupted';
  try {
    if (!o.force && existsSync(path.join(dir, 'summary.json'))) return readFinished(o, dir); // finished by the process it waited for
    return await runLockedArm(o, dir);
  } finally {
    await lock.release();
  }
}

/**
 * A finished arm's record. One made with another config than the experiment's now (an edited
 * config file, a --set) is still read — retraining is --force's decision — but the difference is
 * named, so a table never silently mixes settings. Keys the record lacks (settings added since it
 * was written) are not named.
 */
async function readFinished(o: RunArmOptions, dir: string): Promise<ArmSummary> {
  const recorded = JSON.parse(await fs.readFile(path.join(dir, 'config.resolved.json'), 'utf8')) as unknown;
  const changed = configDifferences(recorded, JSON.parse(JSON.stringify(resolvedConfig(o.exp, o.arm, o.seed))), { skipNewKeys: true });
  if (changed.length > 0) (o.warn ?? console.error)(`[telepath] ${o.arm.name} s${o.seed}: its record (${dir}) was made with another config than this one (${changed.join('; ')}); showing that record — --force retrains it`);
  return JSON.parse(await fs.readFile(path.join(dir, 'summary.json'), 'utf8')) as ArmSummary;
}

/** What a run directory records as its config: everything that decides the arm's result. */
function resolvedConfig(exp: ExperimentConfig, arm: Arm, seed: number) {
  const { reuse: _ownArm, ...armRecord } = arm; // an arm that runs here is never a reused one
  return { experiment: exp.name, task: exp.task, data: exp.data, lm: exp.lm, train: exp.train, eval: exp.eval, arm: armRecord, seed };
}

async function runLockedArm(o: RunArmOptions, dir: string): Promise<ArmSummary | 'interrupted'> {
  const { exp, arm, seed } = o;
  // An arm with its own data settings (another written reasoning of the same questions) loads its own examples.
  const data = arm.data ? await loadTaskData(exp.task, armDataConfig(exp, arm)) : o.data;
  const summaryFile = path.join(dir, 'summary.json');
  if (o.force) await fs.rm(dir, { recursive: true, force: true });

  const method = methodById(arm.method, `arm ${arm.name}`);
  const record = await RunRecord.open(dir, resolvedConfig(exp, arm, seed), { resume: true, datasets: data.hashes });
  const built = await buildArm(method, dir, exp, arm, seed, data, [...data.train, ...data.test], o.runsDir, rewardFromTask(data.task));
  const { state, lm } = built;
  try {
    const rng = new Rng(seed);
    const timing = await readTiming(dir);
    for (const { phase, steps, optim } of method.phases(arm.config)) {
      const bar = o.quiet ? undefined : new Progress(`${arm.name} s${seed} ${phase}`, steps);
      const res = await train({
        params: state.trainable(phase),
        rng: rng.fork(`train/${phase}`),
        modelConfig: lm.config,
        checkpointPath: path.join(dir, `${phase}.ckpt`),
        config: { steps, logEvery: exp.train.logEvery, checkpointEvery: exp.train.checkpointEvery, optim: { ...exp.train.optim, ...optim } },
        loss: (at) => method.loss(state, sampleBatch(data.train, at.rng, exp.train.batchSize), { step: at.step, stage: 0, phase, rng: at.rng }),
        onLog: (l) => {
          void record.log(l.step, { [`${phase}/loss`]: l.loss, [`${phase}/lr`]: l.lr, [`${phase}/grad_norm`]: l.gradNorm, [`${phase}/ms`]: l.ms });
          bar?.update(l.step, `loss ${l.loss.toFixed(3)}`);
        },
        shouldStop: o.shouldStop,
      });
      await record.flush();
      timing[phase] = (timing[phase] ?? 0) + res.seconds;
      await writeFileAtomic(path.join(dir, 'timing.json'), JSON.stringify(timing) + '\n');
      if (res.interrupted) return 'interrupted';
    }
    // Every variable the arm ends with, frozen ones included (a phase checkpoint holds only what that
    // phase trained, e.g. CoLaR's SFT leaves out the embeddings): what a later arm's initFrom loads.
    await saveCheckpoint({ path: path.join(dir, FINAL_CHECKPOINT), params: state.variables(), modelConfig: lm.config, step: 0 });
    const test = exp.eval.maxExamples > 0 ? data.test.slice(0, exp.eval.maxExamples) : data.test;
    const maxNewTokens = exp.eval.maxNewTokens || ((arm.config.maxNewTokens as number | undefined) ?? 64);
    const ev = await evaluate(method, state, test, data.task, { ...exp.eval, maxNewTokens }, { label: `${arm.name} s${seed} eval`, seed, shouldStop: o.shouldStop, quiet: o.quiet });
    if (ev === 'interrupted') return 'interrupted';
    await fs.writeFile(path.join(dir, 'samples.jsonl'), ev.samples.map((s) => JSON.stringify(s)).join('\n') + '\n');
    const controls: NonNullable<ArmSummary['controls']> = {};
    if (ev.reasoningKind === 'latents') {
      for (const control of exp.eval.controls as LatentControl[]) {
        const c = await evaluate(method, state, test, data.task, { ...exp.eval, maxNewTokens }, { label: `${arm.name} s${seed} eval [${control}]`, seed, shouldStop: o.shouldStop, quiet: o.quiet, control });
        if (c === 'interrupted') return 'interrupted';
        controls[control] = { accuracy: c.accuracy, stderr: c.stderr, correct: c.correct, total: c.total };
      }
    }
    if (method.trace) await writeLatentTrace(path.join(dir, 'latents.bin'), method.trace(state, test.slice(0, 256)), { method: arm.method, arm: arm.name });
    const summary: ArmSummary = {
      experiment: exp.name,
      arm: arm.name,
      armIndex: exp.arms.findIndex((a) => a.name === arm.name),
      method: arm.method,
      seed,
      accuracy: ev.accuracy,
      stderr: ev.stderr,
      correct: ev.correct,
      total: ev.total,
      reasoningLength: ev.reasoningLength,
      reasoningKind: ev.reasoningKind,
      msPerExample: ev.msPerExample,
      trainSeconds: Object.values(timing).reduce((a, b) => a + b, 0),
      params: [...state.variables().values()].reduce((a, v) => a + v.size, 0),
      backend: currentBackend()?.backend ?? 'unknown',
      ...(ev.validReasoning !== null ? { validReasoning: ev.validReasoning, reasoningVerdicts: ev.reasoningVerdicts } : {}),
      ...(Object.keys(controls).length ? { controls } : {}),
    };
    await record.log(Object.values(timing).length, { 'test/acc': ev.accuracy, 'test/reasoning_length': ev.reasoningLength, 'test/ms_per_example': ev.msPerExample });
    await record.finish(summary);
    return JSON.parse(await fs.readFile(summaryFile, 'utf8')) as ArmSummary; // as recorded, like a skipped arm's
  } finally {
    state.dispose();
  }
}

/**
 * The reward RL phases get: 1 when the task scores the answer correct, else 0 — the same scoring
 * as evaluation (`isCorrect` on "### answer"). A scorer that throws on a malformed sample (e.g.
 * Countdown's expression tokenizer on a lone ".") scores it 0 instead of ending the run.
 */
export function rewardFromTask(task: Task): RewardFn {
  return (ex, answer) => {
    try {
      return task.isCorrect(ex, `### ${answer}`) ? 1 : 0;
    } catch {
      return 0;
    }
  };
}

/** Tokenizer and LM config (both saved in the run dir on first use), the LM, and the method's state (with the task's reward when training). */
export async function buildArm(method: LatentMethod<unknown, MethodState>, dir: string, exp: ExperimentConfig, arm: Arm, seed: number, data: Pick<TaskData, 'train' | 'vocabulary' | 'vocabularyFrom'>, all: Example[], runsDir: string, reward?: RewardFn) {
  const tokenizer = await runTokenizer(path.join(dir, 'tokenizer.json'), data.vocabularyFrom ?? data.train, data.vocabulary);
  const modelFile = path.join(dir, 'model.json');
  let lmConfig: LmConfig;
  if (existsSync(modelFile)) lmConfig = JSON.parse(await fs.readFile(modelFile, 'utf8')) as LmConfig;
  else {
    const longest = Math.max(...all.map((ex) => {
      const e = encodeExample(tokenizer, ex);
      return e.prompt.length + e.reasoning.length + e.answer.length;
    }));
    const lm = { ...exp.lm, ...arm.lm };
    lmConfig = { ...lm, vocabSize: tokenizer.size, contextLength: lm.contextLength || longest + CONTEXT_MARGIN };
    await writeFileAtomic(modelFile, JSON.stringify(lmConfig, null, 2) + '\n');
  }
  const rng = new Rng(seed);
  const lm = new TinyLm(lmConfig, rng.fork('lm'));
  const source = arm.initFrom ? await readSource(armRunDir(runsDir, exp, arm.initFrom, seed), dir) : null;
  if (source) restoreFrom(source, lm.params, lm.config);
  const state = method.init({ lm, tokenizer, rng: rng.fork('method'), backend: currentBackend()?.backend ?? 'unknown', ...(reward ? { reward } : {}) }, arm.config);
  // From an arm of the same method, the method's own variables (CoLaR's latent head, soft tokens,
  // a coprocessor) start from the source too, so e.g. CoLaR's speeds can share one SFT run.
  if (source?.method === arm.method) restoreFrom(source, new Map([...state.variables()].filter(([k]) => !lm.params.has(k) && source.ck.tensors.has(`param/${k}`))), lm.config);
  return { tokenizer, lm, state };
}

interface InitSource { file: string; ck: Awaited<ReturnType<typeof readCheckpoint>>; method: string }

/**
 * The weights a finished earlier arm (same seed) ended with (its final.ckpt): its tokenizer and
 * model config must equal this arm's.
 */
async function readSource(source: string, dir: string): Promise<InitSource> {
  if (!existsSync(path.join(source, 'summary.json'))) throw new Error(`initFrom: ${source} has not finished; its arm must run (earlier in the same experiment) first`);
  for (const f of ['tokenizer.json', 'model.json']) {
    // model.json through lmConfig, so one written before a setting existed reads with its default.
    const read = async (d: string) => (f === 'model.json' ? JSON.stringify(lmConfig(JSON.parse(await fs.readFile(path.join(d, f), 'utf8')))) : fs.readFile(path.join(d, f), 'utf8'));
    const [a, b] = await Promise.all([read(source), read(dir)]);
    if (a !== b) throw new Error(`initFrom: ${f} of ${source} differs from this arm's (${dir}); both arms must use the same data and LM settings`);
  }
  const resolved = JSON.parse(await fs.readFile(path.join(source, 'config.resolved.json'), 'utf8')) as { arm: Arm };
  let file = path.join(source, FINAL_CHECKPOINT);
  if (!existsSync(file)) {
    // Runs recorded before final.ckpt existed: their last phase's checkpoint.
    const phases = methodById(resolved.arm.method, `initFrom ${source}`).phases(resolved.arm.config);
    file = path.join(source, `${phases[phases.length - 1].phase}.ckpt`);
  }
  return { file, ck: await readCheckpoint(file), method: resolved.arm.method };
}

/** Assigns `params` from the source checkpoint (every one must be there, with its shape). */
function restoreFrom(source: InitSource, params: ReturnType<MethodState['variables']>, modelConfig: LmConfig): void {
  if (params.size === 0) return;
  const tensors = new Map([...source.ck.tensors].filter(([k]) => k.startsWith('param/') && params.has(k.slice('param/'.length))));
  restoreCheckpoint(source.file, { meta: source.ck.meta, tensors }, { params, modelConfig });
}

/** A training batch drawn with the step's rng (so resumed runs see the same batches). */
export function sampleBatch(train: Example[], rng: Rng, batchSize: number): Example[] {
  return Array.from({ length: batchSize }, () => train[rng.int(train.length)]);
}

async function readTiming(dir: string): Promise<Record<string, number>> {
  try {
    return JSON.parse(await fs.readFile(path.join(dir, 'timing.json'), 'utf8')) as Record<string, number>;
  } catch {
    return {};
  }
}
