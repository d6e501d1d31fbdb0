/**
 * The coprocessor method (core's `LatentMethod` contract): Liu et al. 2024 cache augmentation
 * (arXiv 2412.17747) and paper A's H1 and H2 arms (arXiv 2510.00494), all at one latent-token
 * budget N_L = `latentTokens`. The Base is ctx.lm — in experiments the trained CoT / No-CoT arm
 * via `initFrom`; the Coprocessor is initialised from it inside `init`.
 */
import type * as tf from '@tensorflow/tfjs-core';
import type { Example, LatentMethod, StepInfo } from '@telepath/core';
import { DEFAULT_COPROCESSOR_CONFIG, type CoprocessorConfig } from './config.js';
import { generateAnswers, traceLatents } from './generate.js';
import { aheadRows, channelLoss, taskRows } from './loss.js';
import { createState, phasesOf, type CoprocessorState } from './state.js';

function loss(s: CoprocessorState, batch: Example[], at: StepInfo): tf.Scalar {
  if (at.phase === 'pretrain') return channelLoss(s, aheadRows(s, batch, at.rng.fork('ahead')));
  if (at.phase === 'sft' || at.phase === 'warm') return channelLoss(s, taskRows(s, batch));
  throw new Error(
    `coprocessor: unknown phase "${at.phase}". Expected one of: ${phasesOf(s.config)
      .map((p) => p.phase)
      .join(', ')}`,
  );
}

export const coprocessor: LatentMethod<CoprocessorConfig, CoprocessorState> = {
  id: 'coprocessor',
  paper: {
    title:
      'Deliberation in Latent Space via Differentiable Cache Augmentation (Liu et al. 2024); H1/H2 from Exploring System 1 and 2 communication for latent reasoning in LLMs (Coda-Forno et al. 2025)',
    arxiv: '2412.17747',
    sections: [
      '2412.17747 §3 (method, Fig. 1–2)',
      '2412.17747 §4 (Tables 2, 5, 6; Fig. 4)',
      '2510.00494 H1, H2, matched N_L',
    ],
  },
  defaults: DEFAULT_COPROCESSOR_CONFIG,
  init: createState,
  phases: phasesOf,
  loss,
  generate: generateAnswers,
  trace: traceLatents,
};
