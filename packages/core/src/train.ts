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
import { checkNumber, parseConfig } from './config.js';
import { UserError } from './errors.js';
import {
  AdamW,
  checkOptimConfig,
  clipToNorm,
  DEFAULT_OPTIM_CONFIG,
  globalNorm,
  learningRate,
  type OptimConfig,
} from './optim.js';
import { readScalars } from './read.js';
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

export interface TrainStep {
  step: number;
  micro: number;
  rng: Rng;
}
export interface StepLog {
  step: number;
  loss: number;
  lr: number;
  gradNorm: number;
  ms: number;
}

export interface TrainOptions {
  /** Trainable parameters by name. */
  params: Map<string, tf.Variable>;
  /** Loss of one micro-batch; called inside tf.tidy and tf.variableGrads. */
  loss: (at: TrainStep) => tf.Scalar;
  /**
   * Work a micro-batch needs before its loss that reads tensors back (e.g. RL rollouts and their
   * rewards): awaited outside the gradient tape right before `loss`, with an equal `TrainStep` (same
   * step and micro-batch, an Rng of the same path that has drawn nothing), so its reads can be
   * asynchronous (webgpu cannot read synchronously). `loss` then consumes what it left behind.
   */
  prepare?: (at: TrainStep) => Promise<void>;
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
  /**
   * Called once before the first step with the step training starts from (the checkpoint's, or 0):
   * a caller that logs per step drops what it logged past it (steps a crash lost, to be redone).
   */
  onStart?: (startStep: number) => void | Promise<void>;
}

export interface TrainResult {
  /** Loss of every step 0..finalStep−1, including steps run before a resume. */
  losses: number[];
  startStep: number;
  finalStep: number;
  interrupted: boolean;
  /** Seconds of training up to finalStep, summed over every segment (before a resume too). */
  seconds: number;
}

/** A loss or gradient that is not finite: a diverging run (its settings), not a bug, so the CLI prints its message alone. */
export class NonFiniteError extends UserError {
  constructor(message: string) {
    super(message);
    this.name = 'NonFiniteError';
  }
}

export async function train(o: TrainOptions): Promise<TrainResult> {
  const cfg = checkTrainConfig(parseConfig(DEFAULT_TRAIN_CONFIG, o.config, 'train'));
  const optimizer = new AdamW(cfg.optim, o.params);
  const byVarName = new Map([...o.params.entries()].map(([name, v]) => [v.name, name]));
  let losses: number[] = [];
  let step = 0;
  let priorSeconds = 0;
  if (o.checkpointPath && (await exists(o.checkpointPath))) {
    const ck = await readCheckpoint(o.checkpointPath);
    if (ck.meta.step > cfg.steps)
      throw new UserError(
        `${o.checkpointPath}: checkpoint at step ${ck.meta.step}, past this run's ${cfg.steps} steps; it belongs to a longer run (delete it, or use another run directory)`,
      );
    restoreCheckpoint(o.checkpointPath, ck, { params: o.params, modelConfig: o.modelConfig ?? null, optimizer });
    const extra = ck.meta.extra as { losses?: number[]; state?: unknown; seconds?: number } | null;
    step = ck.meta.step;
    losses = extra?.losses?.slice(0, step) ?? [];
    priorSeconds = extra?.seconds ?? 0;
    if (ck.meta.rng) o.rng.restore(ck.meta.rng);
    o.extraState?.restore(extra?.state);
  }
  const startStep = step;
  await o.onStart?.(startStep);
  const t0 = performance.now();
  const seconds = () => priorSeconds + (performance.now() - t0) / 1000;
  const save = async () => {
    if (!o.checkpointPath) return;
    await saveCheckpoint({
      path: o.checkpointPath,
      params: o.params,
      modelConfig: o.modelConfig ?? null,
      step,
      optimizer,
      rng: o.rng.state(),
      extra: { losses, state: o.extraState?.save() ?? null, seconds: seconds() },
    });
  };
  let interrupted = false;
  try {
    while (step < cfg.steps) {
      const ts = performance.now();
      const { loss, gradNorm } = await trainStep(o, cfg, optimizer, byVarName, step);
      losses.push(loss);
      step += 1;
      const log = {
        step,
        loss,
        lr: learningRate(cfg.optim, step - 1, cfg.steps),
        gradNorm,
        ms: performance.now() - ts,
      };
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
  return { losses, startStep, finalStep: step, interrupted, seconds: seconds() };
}

/**
 * Every numeric training setting in its range, or an error naming the key and the range. Zero
 * steps is allowed (a phase with nothing to do, e.g. an arm that only evaluates the LM it starts
 * from); a caller for which that means "trained nothing" refuses it itself.
 */
export function checkTrainConfig(cfg: TrainConfig, where = 'train'): TrainConfig {
  checkNumber(`${where}.steps`, cfg.steps, { integer: true, min: 0 });
  checkNumber(`${where}.gradAccum`, cfg.gradAccum, { integer: true, min: 1 });
  checkNumber(`${where}.logEvery`, cfg.logEvery, { integer: true, min: 1 });
  checkNumber(`${where}.checkpointEvery (0: only at the end)`, cfg.checkpointEvery, { integer: true, min: 0 });
  checkOptimConfig(cfg.optim, `${where}.optim`);
  return cfg;
}

/**
 * One optimiser step. The losses of the micro-batches and the gradient norm are read back
 * together, with one asynchronous read (no synchronous GPU read: read.ts), before the update.
 */
async function trainStep(
  o: TrainOptions,
  cfg: TrainConfig,
  optimizer: AdamW,
  byVarName: Map<string, string>,
  step: number,
): Promise<{ loss: number; gradNorm: number }> {
  const stepRng = o.rng.fork(`step/${step}`);
  const varList = [...o.params.values()];
  const lossTensors: tf.Scalar[] = [];
  let accum: Map<string, tf.Tensor> | undefined;
  let normT: tf.Scalar | undefined;
  try {
    for (let micro = 0; micro < cfg.gradAccum; micro++) {
      await o.prepare?.({ step, micro, rng: stepRng.fork(`micro/${micro}`) });
      const { value, grads } = tf.variableGrads(
        () => o.loss({ step, micro, rng: stepRng.fork(`micro/${micro}`) }),
        varList,
      );
      lossTensors.push(value);
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
        grads.set(
          name,
          tf.tidy(() => tf.div(g, cfg.gradAccum)),
        );
        g.dispose();
      }
    }
    normT = globalNorm(grads);
    const read = await readScalars([...lossTensors, normT]);
    const norm = read.pop()!;
    const bad = read.findIndex((l) => !Number.isFinite(l));
    if (bad >= 0)
      throw new NonFiniteError(
        `train: loss is ${read[bad]} at step ${step}${cfg.gradAccum > 1 ? ` (micro-batch ${bad})` : ''}`,
      );
    if (!Number.isFinite(norm))
      throw new NonFiniteError(
        `train: gradient norm is ${norm} at step ${step}; non-finite gradient in ${await firstNonFinite(grads)}`,
      );
    const clipped = clipToNorm(grads, cfg.optim.clipNorm, norm);
    optimizer.apply(clipped, learningRate(cfg.optim, step, cfg.steps));
    if (clipped !== grads) clipped.forEach((g) => g.dispose());
    return { loss: read.reduce((a, b) => a + b, 0) / cfg.gradAccum, gradNorm: norm };
  } finally {
    tf.dispose(lossTensors);
    normT?.dispose();
    accum?.forEach((g) => g.dispose());
  }
}

async function firstNonFinite(grads: Map<string, tf.Tensor>): Promise<string> {
  const names = [...grads.keys()];
  const flags = tf.tidy(() => names.map((n) => tf.all(tf.isFinite(grads.get(n)!))));
  const ok = await readScalars(flags);
  tf.dispose(flags);
  const bad = names.filter((_, i) => !ok[i]);
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
