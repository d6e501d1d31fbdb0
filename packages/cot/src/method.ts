/**
 * No-CoT (question → ### → answer) and explicit CoT (question → steps → ### → answer) on the
 * core LM, implementing core's method contract. Reasoning length = tokens generated before ###.
 */
import { parseConfig, type LatentMethod } from '@telepath/core';
import { DEFAULT_COT_CONFIG, type CotConfig } from './config.js';
import { generateAnswers } from './generate.js';
import { referenceLoss } from './loss.js';
import { initState, type CotState } from './state.js';

export const cot: LatentMethod<CotConfig, CotState> = {
  id: 'cot',
  paper: { title: 'Supervised No-CoT and chain-of-thought references', arxiv: null, sections: [] },
  defaults: DEFAULT_COT_CONFIG,
  init: initState,
  phases: (c) => [{ phase: 'sft', steps: parseConfig(DEFAULT_COT_CONFIG, c, 'cot').steps }],
  loss: (s, batch) => referenceLoss(s, batch),
  generate: generateAnswers,
};
