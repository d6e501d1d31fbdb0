/**
 * The one record schema every task converts to (docs/datasets.md §1; docs/contributing.md §1 "one record
 * schema for every task") is core's `Example` `{id, question, steps, answer, meta?}`, re-exported
 * here; `id` = `<dataset>/<split>/<line index>`. A task definition (docs/contributing.md §1, lm-eval) is
 * versioned and carries its answer extraction and scoring.
 */

import type { Example } from '@telepath/core';

export type { Example };
export type TaskName = 'gsm8k' | 'gsm-hard' | 'svamp' | 'prosqa' | 'countdown';

export interface Task {
  readonly name: TaskName;
  /** Bump whenever parsing, formatting or scoring changes (docs/contributing.md §1, lm-eval). */
  readonly version: number;
  /** The answer part of a model's output, or null when none can be found. */
  extractAnswer(output: string): string | null;
  /** Whether a model's output (full generated text or bare answer) answers `example` correctly. */
  isCorrect(example: Example, output: string): boolean;
  /**
   * Optional: whether written reasoning (the text before `###`) is sound on its own — for
   * Countdown, every line is a step "a op b=c" on available numbers, arithmetically right, and
   * the steps end at the target. Lets a table tell a wrong plan from wrong arithmetic.
   */
  checkReasoning?(example: Example, reasoning: string): ReasoningVerdict;
}

/** `reason` is a short machine-readable cause ('ok', 'wrong-arithmetic', …); `detail` says where. */
export interface ReasoningVerdict {
  ok: boolean;
  reason: string;
  detail: string;
}
