/**
 * Countdown scoring: the answer after the last `###` is verified against the example's numbers
 * and target under the task's rules (verify.ts); any valid solution counts, not only the reference.
 * Written reasoning (CoT steps) is checked the same way, step by step (`checkReasoning`).
 */
import { answerText } from '../answer.js';
import type { Example, Task } from '../example.js';
import type { CountdownMeta } from './generate.js';
import type { CountdownRules } from './rules.js';
import { readNumbers, type NumberFormat } from './reasoning.js';
import { verifyTrace } from './trace-check.js';
import { verifyCountdown } from './verify.js';

export interface CountdownTask extends Task {
  readonly rules: CountdownRules;
}

function countdownMeta(ex: Example): CountdownMeta {
  const m = ex.meta as CountdownMeta | undefined;
  if (!m || !Array.isArray(m.nums) || typeof m.target !== 'number')
    throw new Error(`${ex.id}: not a Countdown example (meta.nums / meta.target missing)`);
  return m;
}

function makeTask(rules: CountdownRules): CountdownTask {
  return {
    name: 'countdown',
    version: 1,
    rules,
    extractAnswer: (output: string) => answerText(output) || null,
    isCorrect(example: Example, output: string): boolean {
      const m = countdownMeta(example);
      const answer = readNumbers(answerText(output), m.numberFormat as NumberFormat | undefined);
      // An arithmetic fact of the warm-up (stream.ts): the answer is the result itself.
      if (m.fact === true) return answer.trim() === String(m.target);
      return verifyCountdown(m.nums, m.target, answer, rules).ok;
    },
    checkReasoning(example: Example, reasoning: string) {
      const m = countdownMeta(example);
      const lines = readNumbers(reasoning, m.numberFormat as NumberFormat | undefined)
        .split('\n')
        .map((l) => l.trim())
        .filter((l) => l !== '');
      const { ok, reason, detail } = verifyTrace(m.nums, m.target, lines, rules);
      return { ok, reason, detail };
    },
  };
}

/** Stream-of-Search rules (docs/datasets.md §8). */
export const countdownTask: CountdownTask = makeTask('sos');
/** TinyZero's rules (docs/datasets.md §9). */
export const countdownAllNumbersTask: CountdownTask = makeTask('all-numbers');
