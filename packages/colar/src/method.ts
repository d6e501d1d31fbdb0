/**
 * CoLaR (arXiv 2505.16552) on core's method contract: 'sft' trains the LM and the latent head on
 * compressed chains at a random speed per step; 'rl' (when rlSteps > 0) runs GRPO at the
 * configured speed; `generate` decodes at `compressionFactor`, reporting the latents used as the
 * reasoning length; `trace` returns the fed latents (greedy decoding) per latent position.
 * Deviations from the paper (no LoRA: the whole tiny LM trains; the lab's tokenizer) are listed
 * in the package README.
 */
import * as tf from '@tensorflow/tfjs-core';
import {
  embeddingStd,
  Rng,
  toGenerations,
  uniqueVariableName,
  variableFrom,
  type Example,
  type GenerateOptions,
  type Generation,
  type LatentMethod,
  type LatentTrace,
  type MethodContext,
  type StepInfo,
} from '@telepath/core';
import { DEFAULT_COLAR_CONFIG, parseColarConfig, type ColarConfig } from './config.js';
import { rollout } from './generate.js';
import { prepareRl, rlLoss } from './grpo.js';
import { promptIds } from './layout.js';
import { drawSpeed, sftLoss, sftRows } from './loss.js';
import { selfFedInputs, takePending } from './self-feed.js';
import { createHead } from './latent-head.js';
import type { ColarState } from './state.js';

/** Slots written by `trace` at most (later latent positions are rare and thin). */
const TRACE_SLOTS = 16;
const TRACE_BATCH = 64;
/** Checkpoint name of the embedding scale (`ColarState.embStd`). */
export const EMB_STD_VARIABLE = 'colar.embStd';
/** Checkpoint name of the speed vectors (`ColarState.speedTable`, config.speedVector). */
export const SPEED_TABLE_VARIABLE = 'colar.speedTable';

function init(ctx: MethodContext, config: ColarConfig): ColarState {
  const c = parseColarConfig(config);
  if (c.rlSteps > 0 && !ctx.reward)
    throw new Error('colar: rlSteps > 0 needs MethodContext.reward (the lab gives it from the task)');
  const C = ctx.lm.config.width;
  const head = createHead(
    C,
    Math.max(1, Math.round(c.headWidthRatio * C)),
    c.headKind,
    ctx.lm.config.initStd,
    ctx.rng.fork('head'),
  );
  // Not in the paper (config.speedVector): one learnt vector per speed, zeros at the start, so the
  // arm begins as the paper's and learns what the speed should add at the opening ###.
  const speeds = Math.max(c.maxCompressionFactor, c.compressionFactor, ...c.trainSpeeds);
  const speedTable = c.speedVector
    ? variableFrom(tf.zeros([speeds, C]), true, uniqueVariableName(SPEED_TABLE_VARIABLE))
    : undefined;
  const all = () =>
    new Map([
      ...ctx.lm.params,
      ...[...head.params].map(([k, v]) => [`colar.head.${k}`, v] as [string, tf.Variable]),
      ...(speedTable ? [[SPEED_TABLE_VARIABLE, speedTable] as [string, tf.Variable]] : []),
    ]);
  const trainable = () => {
    const m = all();
    if (!c.trainEmbeddings) m.delete('wte');
    return m;
  };
  // Measured once, from the (CoT-trained) embedding table the arm starts from, and checkpointed with
  // the arm (never trained): a re-evaluation rebuilds the LM at random before restoring final.ckpt,
  // and must not re-measure it there.
  const scale = variableFrom(
    embeddingStd(ctx.lm),
    false,
    uniqueVariableName('colar.embStd'),
  ) as tf.Variable<tf.Rank.R0>;
  const variables = () => new Map([...all(), [EMB_STD_VARIABLE, scale] as [string, tf.Variable]]);
  return {
    lm: ctx.lm,
    tokenizer: ctx.tokenizer,
    config: c,
    head,
    embStd: scale,
    ...(speedTable ? { speedTable } : {}),
    ...(ctx.reward ? { reward: ctx.reward } : {}),
    buffer: [],
    rlStats: { rollouts: 0, groups: 0, groupsWithSignal: 0 },
    params: all,
    trainable,
    variables,
    dispose: () => {
      ctx.lm.dispose();
      scale.dispose();
      speedTable?.dispose();
      for (const v of head.params.values()) v.dispose();
      head.params.clear();
    },
  };
}

function phases(config: ColarConfig) {
  const c = parseColarConfig(config);
  const out: { phase: string; steps: number; optim?: { lr: number; warmupSteps: number; lrMinRatio: number } }[] = [
    { phase: 'sft', steps: c.sftSteps },
  ];
  // CoLaR released config, not stated in the paper: the RL optimizer has no scheduler (constant lr).
  if (c.rlSteps > 0) out.push({ phase: 'rl', steps: c.rlSteps, optim: { lr: c.rlLr, warmupSteps: 0, lrMinRatio: 1 } });
  return out;
}

function loss(s: ColarState, batch: Example[], at: StepInfo): tf.Scalar {
  if (at.phase === 'sft') {
    const fed = s.config.selfFeedShare > 0 ? takePending(s, batch) : undefined;
    return sftLoss(s, batch, drawSpeed(s, at.rng.fork('speed')), at.rng, fed);
  }
  if (at.phase === 'rl') return rlLoss(s);
  throw new Error(`colar: unknown phase "${at.phase}". Expected one of: sft, rl`);
}

/**
 * Before the loss, outside the gradient tape (core's train awaits it): the rl phase's rollouts;
 * in sft with selfFeedShare > 0, the self-fed inputs of the batch at the speed and rows its loss draws.
 */
async function prepare(s: ColarState, batch: Example[], at: StepInfo): Promise<void> {
  if (at.phase === 'rl') await prepareRl(s, batch, at.rng);
  if (at.phase === 'sft' && s.config.selfFeedShare > 0) {
    const rows = sftRows(s, batch, drawSpeed(s, at.rng.fork('speed')), at.rng);
    const fed = await selfFedInputs(s, rows, s.config.selfFeedShare, at.rng.fork('self-feed'));
    s.pendingSelfFeed = { exampleIds: batch.map((ex) => ex.id), fed };
  }
}

async function generateAnswers(s: ColarState, batch: Example[], o: GenerateOptions): Promise<Generation[]> {
  const c = s.config;
  const tok = s.tokenizer;
  const rows = await rollout(
    s,
    batch.map((ex) => promptIds(tok, ex, c.compressionFactor, c.speedPrompt)),
    {
      speed: c.compressionFactor,
      decoding: c.decoding,
      temperature: o.temperature,
      topP: o.topP,
      maxNewTokens: o.maxNewTokens || c.maxNewTokens,
      rng: o.rng,
      control: o.control,
    },
  );
  const generations = toGenerations(
    tok,
    batch,
    rows.map((r) => r.answer),
    [tok.sepId],
    (i) => ({ reasoningLength: rows[i].latents.length, reasoningKind: 'latents' }),
  );
  return generations.map((g, i) => ({
    ...g,
    text: `[${rows[i].latents.length} latents${rows[i].stopSampled ? '' : ', capped'}]${g.text}`,
    reasoningCapped: !rows[i].stopSampled,
  }));
}

/** Latents fed at each position (greedy decoding, embedding space): slot k holds the rows that reached latent k. */
async function trace(s: ColarState, batch: Example[]): Promise<LatentTrace> {
  const c = s.config;
  const C = s.lm.config.width;
  const slots: { ids: string[]; values: number[] }[] = Array.from({ length: TRACE_SLOTS }, () => ({
    ids: [],
    values: [],
  }));
  for (let i = 0; i < batch.length; i += TRACE_BATCH) {
    const part = batch.slice(i, i + TRACE_BATCH);
    const rows = await rollout(
      s,
      part.map((ex) => promptIds(s.tokenizer, ex, c.compressionFactor, c.speedPrompt)),
      {
        speed: c.compressionFactor,
        decoding: 'greedy',
        temperature: 0,
        topP: 1,
        maxNewTokens: c.maxNewTokens,
        rng: new Rng(0),
      },
    );
    rows.forEach((r, b) =>
      r.fed.slice(0, TRACE_SLOTS).forEach((v, k) => {
        slots[k].ids.push(part[b].id);
        slots[k].values.push(...v);
      }),
    );
  }
  const used = slots.filter((sl) => sl.ids.length > 0);
  return {
    source: `colar latents at speed ${c.compressionFactor} (greedy)`,
    slots: used.map((sl, k) => ({
      name: `latent${k + 1}`,
      vectors: Float32Array.from(sl.values),
      rows: sl.ids.length,
      width: C,
    })),
    exampleIds: batch.map((ex) => ex.id),
  };
}

export const colar: LatentMethod<ColarConfig, ColarState> = {
  id: 'colar',
  paper: {
    title: 'Think Silently, Think Fast: Dynamic Latent Compression of LLM Reasoning Chains',
    arxiv: '2505.16552',
    sections: [
      'Embedding Compress',
      'Latent Head',
      'SFT losses',
      'RL (GRPO)',
      'Table 1',
      'Table 2',
      'Fig. 3',
      'Fig. 4',
    ],
  },
  defaults: DEFAULT_COLAR_CONFIG,
  init,
  phases,
  loss,
  prepare,
  generate: generateAnswers,
  evalPasses: (config) => {
    const c = parseColarConfig(config);
    return c.decoding === 'greedy' ? 1 : c.evalPasses; // greedy decoding gives the same answers every pass
  },
  trainingStats: (s): Record<string, number> =>
    s.rlStats.groups > 0
      ? { rlRollouts: s.rlStats.rollouts, rlGroups: s.rlStats.groups, rlGroupsWithSignal: s.rlStats.groupsWithSignal }
      : {},
  trace,
};
