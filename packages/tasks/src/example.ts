/**
 * The one record schema every task converts to (datasets.md §1; house-style §1 "one record
 * schema for every task"), and the shape of a task definition (house-style §1, lm-eval: tasks
 * are versioned and carry their answer extraction and scoring).
 *
 * `Example` has exactly the field names the lead will add to @telepath/core; until then it is
 * defined here. `id` = `<dataset>/<split>/<line index>` (datasets.md §1).
 */

export interface Example {
  id: string;
  question: string;
  steps: string[];
  answer: string;
  /** Task metadata (e.g. ProsQA graph, Countdown numbers and target). */
  meta?: Record<string, unknown>;
}

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
