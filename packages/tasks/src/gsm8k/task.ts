/**
 * Scoring for the GSM family (docs/datasets.md §10): the answer is the first number after the last
 * `###` of the output; GSM8K and SVAMP compare it exactly after normalisation (commas, signs,
 * trailing ".0"), GSM-Hard numerically with a relative tolerance of 1e-4 (its targets are floats).
 */
import { answerText } from '../answer.js';
import type { Example, Task } from '../example.js';
import { firstNumber, numbersClose, numbersEqual } from '../numbers.js';

function extractNumber(output: string): string | null {
  return firstNumber(answerText(output));
}

/** A GSM-family task: the first number after the last ### compared with `same`. */
function numericTask(name: Task['name'], same: (pred: string, gold: string) => boolean): Task {
  return {
    name,
    version: 1,
    extractAnswer: extractNumber,
    isCorrect(example: Example, output: string): boolean {
      const pred = extractNumber(output);
      return pred !== null && same(pred, example.answer);
    },
  };
}

export const gsm8kTask: Task = numericTask('gsm8k', numbersEqual);
export const svampTask: Task = numericTask('svamp', numbersEqual);

/** Relative tolerance for GSM-Hard (docs/datasets.md §6: |pred − gold| ≤ 1e-4·max(1, |gold|), [inferred] there). */
export const GSM_HARD_TOLERANCE = 1e-4;

export const gsmHardTask: Task = numericTask('gsm-hard', (pred, gold) => numbersClose(pred, gold, GSM_HARD_TOLERANCE));
