/**
 * The training loop every method uses: AdamW with warmup + cosine, global-norm clipping,
 * gradient accumulation, a NaN/Inf guard that names the step and the tensor, periodic atomic
 * checkpoints, and resume. The loss closure gets the step and a per-step Rng forked from the run's
 * Rng by step number, so a run resumed from a checkpoint at step k draws exactly what an
 * uninterrupted run draws from step k on. Every step runs inside `tf.tidy`; the tensor count
 * stays flat.
 */
import { promises as fs } from 'node:fs';
import * as tf from '@tensorflow/tfjs-core';
import { readCheckpoint, restoreCheckpoint, saveCheckpoint } from './checkpoint.js';
import { parseConfig } from './config.js';
import { AdamW, clipByGlobalNorm, DEFAULT_OPTIM_CONFIG, learningRate, type OptimConfig } from './optim.js';
import type { Rng } from './rng.js';

export interface TrainConfig {
  steps: number;
  /** Micro-batches whose gradients are averaged into one update. */
  gradAccum: number;
  logEvery: number;
  /** Save a checkpoint every this many steps (0: only at the end and on interruption). */
  checkpointEvery: number;
  optim: OptimConfig;
}

export const DEFAULT_TRAIN_CONFIG: TrainConfig = {
  steps: 100,
  gradAccum: 1,
  logEvery: 10,
  checkpointEvery: 0,
  optim: DEFAULT_OPTIM_CONFIG,
};

export interface TrainStep { step: number; micro: number; rng: Rng }
export interface StepLog { step: number; loss: number; lr: number; gradNorm: number; ms: number }

export interface TrainOptions {
  /** Trainable parameters by name. */
  params: Map<string, tf.Variable>;
  /** Loss of one micro-batch; called inside tf.tidy and tf.variableGrads. */
  loss: (at: TrainStep) => tf.Scalar;
  config: Partial<TrainConfig> | TrainConfig;
  rng: Rng;
  /** Stored in checkpoints and checked on resume. */
  modelConfig?: unknown;
  /** When set: resume from it if it exists, save to it every `checkpointEvery` steps and at the end. */
  checkpointPath?: string;
  /** Extra state saved with each checkpoint and handed back on resume (e.g. a method's schedule). */
  extraState?: { save(): unknown; restore(saved: unknown): void };
  /** Called after logged steps; a returned promise is awaited before the next step (e.g. a validation pass). */
  onLog?: (log: StepLog) => unknown;
  /** Polled after every step; when true, the loop checkpoints and returns (e.g. on Ctrl-C). */
  shouldStop?: () => boolean;
}

export interface TrainResult {
  /** Loss of every step 0..finalStep−1, including steps run before a resume. */
  losses: number[];
  startStep: number;
  finalStep: number;
  interrupted: boolean;
  seconds: number;
}

export class NonFiniteError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'NonFiniteError';
  }
}

export async function train(o: TrainOptions): Promise<TrainResult> {
  const cfg = parseConfig(DEFAULT_TRAIN_CONFIG, o.config, 'train');
  if (!Number.isInteger(cfg.gradAccum) || cfg.gradAccum < 1) throw new Error(`train.gradAccum must be an integer ≥ 1, got ${cfg.gradAccum}`);
  const optimizer = new AdamW(cfg.optim, o.params);
  const byVarName = new Map([...o.params.entries()].map(([name, v]) => [v.name, name]));
  let losses: number[] = [];
  let step = 0;
  if (o.checkpointPath && (await exists(o.checkpointPath))) {
    const ck = await readCheckpoint(o.checkpointPath);
    restoreCheckpoint(o.checkpointPath, ck, { params: o.params, modelConfig: o.modelConfig ?? null, optimizer });
    const extra = ck.meta.extra as { losses?: number[]; state?: unknown } | null;
    step = ck.meta.step;
    losses = extra?.losses?.slice(0, step) ?? [];
    if (ck.meta.rng) o.rng.restore(ck.meta.rng);
    o.extraState?.restore(extra?.state);
  }
  const startStep = step;
  const t0 = performance.now();
  const save = async () => {
    if (!o.checkpointPath) return;
    await saveCheckpoint({
      path: o.checkpointPath,
      params: o.params,
      modelConfig: o.modelConfig ?? null,
      step,
      optimizer,
      rng: o.rng.state(),
      extra: { losses, state: o.extraState?.save() ?? null },
    });
  };
  let interrupted = false;
  try {
    while (step < cfg.steps) {
      const ts = performance.now();
      const { loss, gradNorm } = trainStep(o, cfg, optimizer, byVarName, step);
      losses.push(loss);
      step += 1;
      const log = { step, loss, lr: learningRate(cfg.optim, step - 1, cfg.steps), gradNorm, ms: performance.now() - ts };
      if (o.onLog && (step % cfg.logEvery === 0 || step === cfg.steps || step === startStep + 1)) await o.onLog(log);
      if (cfg.checkpointEvery > 0 && step % cfg.checkpointEvery === 0 && step < cfg.steps) await save();
      // Yield to the event loop once per step so a SIGINT handler (the lab's Ctrl-C) runs before the next step.
      await new Promise<void>((resolve) => setImmediate(resolve));
      if (o.shouldStop?.()) {
        interrupted = step < cfg.steps;
        break;
      }
    }
    await save();
  } finally {
    optimizer.dispose();
  }
  return { losses, startStep, finalStep: step, interrupted, seconds: (performance.now() - t0) / 1000 };
}

function trainStep(o: TrainOptions, cfg: TrainConfig, optimizer: AdamW, byVarName: Map<string, string>, step: number): { loss: number; gradNorm: number } {
  const stepRng = o.rng.fork(`step/${step}`);
  const varList = [...o.params.values()];
  let lossSum = 0;
  let accum: Map<string, tf.Tensor> | undefined;
  for (let micro = 0; micro < cfg.gradAccum; micro++) {
    const { value, grads } = tf.variableGrads(() => o.loss({ step, micro, rng: stepRng.fork(`micro/${micro}`) }), varList);
    const loss = value.dataSync()[0];
    value.dispose();
    if (!Number.isFinite(loss)) {
      tf.dispose(Object.values(grads));
      accum?.forEach((g) => g.dispose());
      throw new NonFiniteError(`train: loss is ${loss} at step ${step}${cfg.gradAccum > 1 ? ` (micro-batch ${micro})` : ''}`);
    }
    lossSum += loss;
    const named = new Map<string, tf.Tensor>();
    for (const [varName, g] of Object.entries(grads)) named.set(byVarName.get(varName) ?? varName, g);
    if (!accum) accum = named;
    else {
      for (const [name, g] of named) {
        const prev = accum.get(name);
        accum.set(name, prev ? tf.tidy(() => tf.add(prev, g)) : g);
        if (prev) {
          prev.dispose();
          g.dispose();
        }
      }
    }
  }
  const grads = accum!;
  if (cfg.gradAccum > 1) {
    for (const [name, g] of grads) {
      grads.set(name, tf.tidy(() => tf.div(g, cfg.gradAccum)));
      g.dispose();
    }
  }
  try {
    const { norm, clipped } = clipByGlobalNorm(grads, cfg.optim.clipNorm);
    if (!Number.isFinite(norm)) throw new NonFiniteError(`train: gradient norm is ${norm} at step ${step}; non-finite gradient in ${firstNonFinite(grads)}`);
    optimizer.apply(clipped, learningRate(cfg.optim, step, cfg.steps));
    if (clipped !== grads) clipped.forEach((g) => g.dispose());
    return { loss: lossSum / cfg.gradAccum, gradNorm: norm };
  } finally {
    grads.forEach((g) => g.dispose());
  }
}

function firstNonFinite(grads: Map<string, tf.Tensor>): string {
  const bad: string[] = [];
  for (const [name, g] of grads) {
    const ok = tf.tidy(() => tf.all(tf.isFinite(g)).dataSync()[0]);
    if (!ok) bad.push(name);
  }
  return bad.length ? bad.join(', ') : '(none found)';
}

async function exists(path: string): Promise<boolean> {
  try {
    await fs.access(path);
    return true;
  } catch {
    return false;
  }
}
