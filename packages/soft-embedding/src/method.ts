/**
 * The `soft-embedding` method: paper A's unified soft-token baseline (arXiv 2510.00494) and
 * Coconut's continuous thought (arXiv 2412.06769 v1 §3), one `LatentMethod` selected by
 * `config.variant`. Reasoning length = N_L latent positions; `trace` hands the latent vectors to
 * the run record; generation applies the lab's latent controls through core's helper.
 */
import { type LatentMethod } from '@telepath/core';
import { DEFAULT_SOFT_EMBEDDING_CONFIG, resolveConfig, type SoftEmbeddingConfig } from './config.js';
import { curriculumPhases, STAGE_OPTIM } from './curriculum.js';
import { generateAnswers, traceLatents } from './generate.js';
import { continuousLoss, softTokensLoss } from './loss.js';
import { initState, type SoftEmbeddingState } from './state.js';

export const softEmbedding: LatentMethod<SoftEmbeddingConfig, SoftEmbeddingState> = {
  id: 'soft-embedding',
  paper: {
    title:
      'Exploring System 1 and 2 communication for latent reasoning in LLMs (soft-embedding baseline); Training Large Language Models to Reason in a Continuous Latent Space (Coconut)',
    arxiv: '2510.00494; 2412.06769',
    sections: [
      '2510.00494: unified soft-embedding baseline, latent-token budget N_L',
      '2412.06769 §3: continuous thought, multi-stage training, inference',
    ],
  },
  defaults: DEFAULT_SOFT_EMBEDDING_CONFIG,
  init: initState,
  phases: (raw) => {
    const c = resolveConfig(raw);
    return c.variant === 'soft-tokens'
      ? [{ phase: 'sft', steps: c.steps }]
      : curriculumPhases(c).map(({ phase, steps }) => ({ phase, steps, optim: { ...STAGE_OPTIM } }));
  },
  loss: (s, batch, at) =>
    s.config.variant === 'soft-tokens' ? softTokensLoss(s, batch, at) : continuousLoss(s, batch, at),
  generate: generateAnswers,
  vacuousControls: (raw) =>
    resolveConfig(raw).variant === 'soft-tokens'
      ? { shuffle: 'soft tokens are the same vectors for every question, so shuffling them changes nothing' }
      : {},
  trace: (s, batch) => traceLatents(s, batch),
};
