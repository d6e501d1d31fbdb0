/** The record of one finished arm × seed (summary.json): what every table, report and status reads. */
import type { Diagnostics } from '../evaluation/diagnostics.js';
import type { PassStats } from '../evaluation/eval-passes.js';
import type { TestSetResult } from '../evaluation/arm-eval.js';

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
  /** Stochastic decoding evaluated several times (LatentMethod.evalPasses): accuracy is their mean; each pass's accuracy, sd and 95 % interval. */
  passes?: PassStats;
  /** The arm its weights start from at the root of its initFrom chain (e.g. "cot" for CoLaR's RL arms), or "scratch". */
  startsFrom?: string;
  /** The method's training counts (LatentMethod.trainingStats), e.g. CoLaR's rlGroups and rlGroupsWithSignal. */
  trainingStats?: Record<string, number>;
  /** Accuracy of the same arm with its latents replaced (latent methods only). */
  controls?: Record<string, { accuracy: number; stderr: number; correct: number; total: number }>;
  /** Controls of eval.controls not evaluated because they cannot change this arm's latents (LatentMethod.vacuousControls), with why. */
  vacuousControls?: Record<string, string>;
  /** Chain classes, agreement, token-cap hits, ProsQA option rates (absent in records written before them). */
  diagnostics?: Diagnostics;
  /** Further test sets (Countdown's other split), by name; their samples are in samples.<name>.jsonl. */
  tests?: Record<string, TestSetResult>;
  /** What was added to a finished record later, without retraining (upgrade-record.ts). */
  upgraded?: string[];
  /** Controls whose per-question scores could not be added later: evaluated again, they differed from the record. */
  controlScoresUnreproduced?: string[];
  /** Set when evaluating a multi-pass arm's passes again did not give the recorded accuracies, so its samples have no `passScore`. */
  passScoresUnreproduced?: boolean;
}
