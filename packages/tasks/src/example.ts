/**
 * The one record schema every task converts to (datasets.md §1; house-style §1 "one record
 * schema for every task") is core's `Example` `{id, question, steps, answer, meta?}`, re-exported
 * here; `id` = `<dataset>/<split>/<line index>`. A task definition (house-style §1, lm-eval) is
 * versioned and carries its answer extraction and scoring.
 */

import type { Example } from '@telepath/core';

export type { Example };
export type TaskName = 'gsm8k' | 'gsm-hard' | 'svamp' | 'prosqa' | 'countdown';

export interface Task {
  readonly name: TaskName;
  /** Bump whenever parsing, formatting or scoring changes (house-style §1, lm-eval). */
  readonly version: number;
  /** The answer part of a model's output, or null when none can be found. */
  extractAnswer(output: string): string | null;
  /** Whether a model's output (full generated text or bare answer) answers `example` correctly. */
  isCorrect(example: Example, output: string): boolean;
}
