/**
 * AdamW with decoupled weight decay (Loshchilov & Hutter), a linear-warmup + cosine learning-rate
 * schedule and global-norm gradient clipping. By default norms, biases and embeddings get no
 * decay. The moment estimates are named variables so checkpoints can save and restore them. The
 * update runs as one fused kernel per parameter where the backend has it (fused.ts).
 */
import * as tf from '@tensorflow/tfjs-core';
import { checkNumber } from './config.js';
import { FUSED_KERNELS, fusedKernelFor, runFused } from './fused.js';
import { variableFrom } from './tidy.js';

export interface OptimConfig {
  lr: number;
  /** Final learning rate of the cosine schedule, as a fraction of `lr`. */
  lrMinRatio: number;
  warmupSteps: number;
  beta1: number;
  beta2: number;
  eps: number;
  weightDecay: number;
  /** Global-norm clip; 0 disables clipping. */
  clipNorm: number;
}

export const DEFAULT_OPTIM_CONFIG: OptimConfig = {
  lr: 1e-3,
  lrMinRatio: 0.1,
  warmupSteps: 10,
  beta1: 0.9,
  beta2: 0.999,
  eps: 1e-8,
  weightDecay: 0.01,
  clipNorm: 1.0,
};

/** Every optimiser setting in its range, or an error naming the key and the range. */
export function checkOptimConfig(c: OptimConfig, where = 'optim'): OptimConfig {
  checkNumber(`${where}.lr`, c.lr, { min: 0, minExclusive: true });
  checkNumber(`${where}.lrMinRatio`, c.lrMinRatio, { min: 0, max: 1 });
  checkNumber(`${where}.warmupSteps`, c.warmupSteps, { integer: true, min: 0 });
  checkNumber(`${where}.beta1`, c.beta1, { min: 0, max: 1, maxExclusive: true });
  checkNumber(`${where}.beta2`, c.beta2, { min: 0, max: 1, maxExclusive: true });
  checkNumber(`${where}.eps`, c.eps, { min: 0, minExclusive: true });
  checkNumber(`${where}.weightDecay`, c.weightDecay, { min: 0 });
  checkNumber(`${where}.clipNorm (0: no clipping)`, c.clipNorm, { min: 0 });
  return c;
}

/** Learning rate at `step` (0-based) of a run of `totalSteps`: linear warmup, then cosine to lr·lrMinRatio. */
export function learningRate(c: OptimConfig, step: number, totalSteps: number): number {
  if (c.warmupSteps > 0 && step < c.warmupSteps) return (c.lr * (step + 1)) / c.warmupSteps;
  const span = Math.max(1, totalSteps - c.warmupSteps);
  const progress = Math.min(1, (step - c.warmupSteps) / span);
  const min = c.lr * c.lrMinRatio;
  return min + 0.5 * (c.lr - min) * (1 + Math.cos(Math.PI * progress));
}

/** Default decay rule: only matrices that are not embedding tables. */
export function decays(name: string, v: tf.Variable): boolean {
  return v.rank >= 2 && !/(^|\.)(wte|wpe)$/.test(name) && !/embed/i.test(name);
}

/** One AdamW step's scalars; c1, c2 are the bias corrections 1 − β₁ᵗ and 1 − β₂ᵗ. */
export interface AdamWStep {
  lr: number;
  beta1: number;
  beta2: number;
  eps: number;
  /** Decoupled weight decay of this parameter (0: none). */
  weightDecay: number;
  c1: number;
  c2: number;
}

/**
 * One AdamW update of a parameter of any shape (no gradient): the fused kernel where the backend
 * has it (fused.ts), else plain ops with the same rounding order. Returns [param', m', v'].
 */
export function adamWUpdate(
  p: tf.Tensor,
  m: tf.Tensor,
  v: tf.Tensor,
  g: tf.Tensor,
  s: AdamWStep,
): [tf.Tensor, tf.Tensor, tf.Tensor] {
  if (fusedKernelFor(FUSED_KERNELS.adamW, p, false))
    return runFused(FUSED_KERNELS.adamW, { param: p, m, v, grad: g }, { ...s }) as [tf.Tensor, tf.Tensor, tf.Tensor];
  return tf.tidy(() => {
    const m1 = tf.add(tf.mul(m, s.beta1), tf.mul(g, 1 - s.beta1));
    const v1 = tf.add(tf.mul(v, s.beta2), tf.mul(tf.mul(g, g), 1 - s.beta2));
    let update = tf.div(tf.div(m1, s.c1), tf.add(tf.sqrt(tf.div(v1, s.c2)), s.eps));
    if (s.weightDecay > 0) update = tf.add(update, tf.mul(p, s.weightDecay));
    return [tf.sub(p, tf.mul(update, s.lr)), m1, v1] as [tf.Tensor, tf.Tensor, tf.Tensor];
  });
}

export class AdamW {
  readonly m = new Map<string, tf.Variable>();
  readonly v = new Map<string, tf.Variable>();
  /** Number of updates applied. */
  t = 0;

  constructor(
    readonly config: OptimConfig,
    readonly params: Map<string, tf.Variable>,
    readonly decayRule: (name: string, v: tf.Variable) => boolean = decays,
  ) {
    for (const [name, p] of params) {
      this.m.set(name, variableFrom(tf.zerosLike(p), false, `${p.name}/adam.m`));
      this.v.set(name, variableFrom(tf.zerosLike(p), false, `${p.name}/adam.v`));
    }
  }

  /** One update with the given gradients (already clipped / averaged) at learning rate `lr`. */
  apply(grads: Map<string, tf.Tensor>, lr: number): void {
    const { beta1, beta2, eps, weightDecay } = this.config;
    this.t += 1;
    const step = {
      lr,
      beta1,
      beta2,
      eps,
      weightDecay: 0,
      c1: 1 - Math.pow(beta1, this.t),
      c2: 1 - Math.pow(beta2, this.t),
    };
    tf.tidy(() => {
      for (const [name, p] of this.params) {
        const g = grads.get(name);
        if (!g) continue;
        const m = this.m.get(name)!;
        const v = this.v.get(name)!;
        const decay = weightDecay > 0 && this.decayRule(name, p) ? weightDecay : 0;
        const [p1, m1, v1] = adamWUpdate(p, m, v, g, { ...step, weightDecay: decay });
        m.assign(m1);
        v.assign(v1);
        p.assign(p1);
      }
    });
  }

  dispose(): void {
    for (const t of [...this.m.values(), ...this.v.values()]) t.dispose();
    this.m.clear();
    this.v.clear();
  }
}

/** Global L2 norm of the gradients, as a scalar tensor (read it with the step's other scalars: read.ts). */
export function globalNorm(grads: Map<string, tf.Tensor>): tf.Scalar {
  return tf.tidy(() => tf.sqrt(tf.addN([...grads.values()].map((g) => tf.sum(tf.mul(g, g))))) as tf.Scalar);
}

/**
 * The gradients scaled so their global norm (`norm`, already read) is at most `clipNorm`; the
 * same map, unchanged, when clipNorm is 0, the norm is within it or not finite.
 */
export function clipToNorm(grads: Map<string, tf.Tensor>, clipNorm: number, norm: number): Map<string, tf.Tensor> {
  if (clipNorm <= 0 || !Number.isFinite(norm) || norm <= clipNorm) return grads;
  const scale = clipNorm / (norm + 1e-6);
  const clipped = new Map<string, tf.Tensor>();
  for (const [name, g] of grads) clipped.set(name, tf.mul(g, scale));
  return clipped;
}
