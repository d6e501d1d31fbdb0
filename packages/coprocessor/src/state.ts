/**
 * State of a coprocessor arm: the Base (ctx.lm — the trained CoT / No-CoT reference when the
 * arm starts from one), the Coprocessor built from it, the resolved config, and which variables
 * each phase trains. Phases: 'pretrain' (Liu's ahead-token objective, optional), 'warm' (h2
 * variants only, optional: the Coprocessor trains with the Base still frozen), 'sft' (the task).
 */
import * as tf from '@tensorflow/tfjs-core';
import {
  embeddingStd,
  uniqueVariableName,
  variableFrom,
  type MethodContext,
  type MethodState,
  type TinyLm,
  type Tokenizer,
} from '@telepath/core';
import { resolveConfig, VARIANTS, type CoprocessorConfig, type VariantSpec } from './config.js';
import { createCoprocessor, disposeCoprocessor, type Coprocessor } from './model.js';

export interface CoprocessorState extends MethodState {
  base: TinyLm;
  cp: Coprocessor;
  tokenizer: Tokenizer;
  config: CoprocessorConfig;
  spec: VariantSpec;
  /**
   * Factor applied to z before embedding injection (config.latentScale, or the Base's embedding
   * std at init). The checkpointed variable itself (`copro.latentScale`, in `variables()`, never
   * trained), so a restored arm uses the value it trained with, not one re-measured from the
   * randomly initialised LM a re-evaluation builds before restoring; used as a tensor, never read back.
   */
  readonly latentScale: tf.Scalar;
}

/** Checkpoint name of the embedding-injection scale (`CoprocessorState.latentScale`). */
export const LATENT_SCALE_VARIABLE = 'copro.latentScale';

/**
 * Phases in order. One learning rate per phase (core's train takes one param map and one optimizer
 * config): h2 can give the Coprocessor a head start at the same rate ('warm'), not a second rate.
 */
export function phasesOf(config: unknown): { phase: string; steps: number; optim?: { lr: number } }[] {
  const c = resolveConfig(config);
  const optim = c.lr > 0 ? { optim: { lr: c.lr } } : {};
  const out: { phase: string; steps: number; optim?: { lr: number } }[] = [];
  if (c.pretrainSteps > 0) out.push({ phase: 'pretrain', steps: c.pretrainSteps, ...optim });
  if (c.frozenBaseSteps > 0) out.push({ phase: 'warm', steps: c.frozenBaseSteps, ...optim });
  out.push({ phase: 'sft', steps: c.steps, ...optim });
  return out;
}

export function createState(ctx: MethodContext, config: CoprocessorConfig): CoprocessorState {
  const c = resolveConfig(config);
  const spec = VARIANTS[c.variant];
  const base = ctx.lm;
  const cp = createCoprocessor(base, c.latentTokens, spec.injection, c.softInitStd, ctx.rng.fork('coprocessor'));
  const coproVars = new Map([...cp.used].map(([n, v]) => [`copro.${n}`, v]));
  const all = new Map<string, tf.Variable>([...base.params, ...coproVars]);
  const scale = variableFrom(
    c.latentScale > 0 ? tf.scalar(c.latentScale) : embeddingStd(base),
    false,
    uniqueVariableName('copro.latentScale'),
  ) as tf.Variable<tf.Rank.R0>;
  const variables = new Map<string, tf.Variable>([...all, [LATENT_SCALE_VARIABLE, scale]]);
  return {
    base,
    cp,
    tokenizer: ctx.tokenizer,
    config: c,
    spec,
    latentScale: scale,
    trainable: (phase) => {
      if (phase === 'sft') return spec.trainBase ? all : coproVars;
      if (phase === 'pretrain' || phase === 'warm') return coproVars; // Liu §3: the decoder stays frozen
      throw new Error(
        `coprocessor: unknown phase "${phase}". Expected one of: ${phasesOf(c)
          .map((p) => p.phase)
          .join(', ')}`,
      );
    },
    variables: () => variables,
    dispose: () => {
      disposeCoprocessor(cp);
      scale.dispose();
      base.dispose();
    },
  };
}
