/**
 * Coconut's multi-stage curriculum (arXiv 2412.06769 v1 §3, training procedure; schedule as in
 * the released configs): stage s replaces the first s language reasoning steps by s × c
 * continuous thoughts; past the last latent stage (maxLatentStage = N_L / c) every step is
 * removed and maxLatentStage × c thoughts are used. Coconut derives the stage from the epoch
 * (stage = epoch ÷ epochs_per_stage) and resets the optimizer at every stage; here the stage is
 * derived from the training step by the pure `stageAt`, and each stage is one training phase
 * (`stage<s>`), so core's train() starts a fresh optimizer per stage, at a constant learning rate
 * (`STAGE_OPTIM`).
 */
import type { Rng } from '@telepath/core';
import { maxLatentStage, type SoftEmbeddingConfig } from './config.js';

type CurriculumConfig = Pick<
  SoftEmbeddingConfig,
  'latentTokens' | 'thoughtsPerStep' | 'firstStage' | 'stepsPerStage' | 'finalStageSteps'
> &
  Partial<Pick<SoftEmbeddingConfig, 'totalSteps'>>;

/**
 * Optimizer settings of every stage, over the experiment's: Coconut (arXiv 2412.06769 §4 and its
 * released configs) resets the optimizer at each stage and trains at a constant learning rate
 * (1e-4, no warmup, no decay). core's train() starts a fresh AdamW per phase; this keeps its
 * learning rate at the experiment's peak for the whole stage.
 */
export const STAGE_OPTIM = { warmupSteps: 0, lrMinRatio: 1 } as const;

/** The final stage: every language step replaced. */
export function finalStage(c: CurriculumConfig): number {
  return maxLatentStage(c as SoftEmbeddingConfig) + 1;
}

/**
 * Stage of global training step `step` (0 = the first step of this method's training):
 * firstStage + ⌊step / stepsPerStage⌋, capped at the final stage; stepsPerStage = 0 trains the
 * final stage only (Coconut's "w/o curriculum" ablation).
 */
export function stageAt(step: number, c: CurriculumConfig): number {
  if (!Number.isInteger(step) || step < 0) throw new Error(`stageAt: step must be an integer ≥ 0, got ${step}`);
  const last = finalStage(c);
  if (c.stepsPerStage === 0) return last;
  return Math.min(last, c.firstStage + Math.floor(step / c.stepsPerStage));
}

export interface CurriculumPhase {
  phase: string;
  stage: number;
  steps: number;
}

/**
 * Training phases in order: one per stage that gets at least one step, sized by `stageAt` — or,
 * with totalSteps > 0, the stages firstStage..final share totalSteps equally (the final stage
 * takes the remainder), whatever N_L.
 */
export function curriculumPhases(c: CurriculumConfig): CurriculumPhase[] {
  const last = finalStage(c);
  const phases: CurriculumPhase[] = [];
  if (c.totalSteps && c.totalSteps > 0) {
    const stages = last - c.firstStage + 1;
    const each = Math.floor(c.totalSteps / stages);
    for (let stage = c.firstStage; stage <= last; stage++) {
      const steps = stage === last ? c.totalSteps - each * (stages - 1) : each;
      if (steps > 0) phases.push({ phase: `stage${stage}`, stage, steps });
    }
    return phases;
  }
  const total = (c.stepsPerStage === 0 ? 0 : (last - c.firstStage) * c.stepsPerStage) + c.finalStageSteps;
  for (let step = 0; step < total; step++) {
    const stage = stageAt(step, c);
    const cur = phases[phases.length - 1];
    if (cur && cur.stage === stage) cur.steps += 1;
    else phases.push({ phase: `stage${stage}`, stage, steps: 1 });
  }
  if (phases.length === 0)
    throw new Error('soft-embedding: the curriculum has no training steps (stepsPerStage and finalStageSteps are 0)');
  return phases;
}

/** Stage of a phase name produced by `curriculumPhases`. */
export function stageOfPhase(phase: string): number {
  const m = /^stage(\d+)$/.exec(phase);
  if (!m)
    throw new Error(
      `soft-embedding: continuous-thought has no phase "${phase}". Expected stage<s> (see curriculumPhases)`,
    );
  return Number(m[1]);
}

/**
 * What one example looks like at `stage`: how many continuous thoughts it gets and how many of
 * its `nSteps` language steps are removed.
 */
export function stageLayout(
  stage: number,
  nSteps: number,
  c: CurriculumConfig,
): { thoughts: number; removedSteps: number } {
  const maxStage = maxLatentStage(c as SoftEmbeddingConfig);
  if (stage > maxStage) return { thoughts: maxStage * c.thoughtsPerStep, removedSteps: nSteps };
  return { thoughts: stage * c.thoughtsPerStep, removedSteps: Math.min(stage, nSteps) };
}

/**
 * Stage of one training example: the scheduled stage, or with probability `uniformProb` a stage
 * drawn uniformly from 0..nSteps (Coconut's uniform_prob mixing, as its released code describes).
 */
export function exampleStage(scheduled: number, nSteps: number, uniformProb: number, rng: Rng): number {
  if (uniformProb > 0 && rng.float() < uniformProb) return rng.int(nSteps + 1);
  return scheduled;
}
