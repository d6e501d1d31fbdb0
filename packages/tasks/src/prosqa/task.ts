/**
 * ProsQA scoring (docs/datasets.md §10; issue 3 "the chosen concept equals the answer's"): the
 * concept is the last word of the answer text after the last `###` ("Tom is a lempus." →
 * "lempus"; a bare "lempus" works too). Written reasoning is checked as a path through the
 * question's graph (reasoning.ts).
 */
import { answerText } from '../answer.js';
import type { Example, Task } from '../example.js';
import { checkProsqaReasoning } from './reasoning.js';

/** The concept named by an answer sentence, or null. */
export function answerConcept(text: string): string | null {
  const m = /([A-Za-z]+)\s*\.?\s*$/.exec(text.trim());
  return m ? m[1] : null;
}

export const prosqaTask: Task = {
  name: 'prosqa',
  version: 1,
  extractAnswer(output: string): string | null {
    return answerConcept(answerText(output));
  },
  isCorrect(example: Example, output: string): boolean {
    const pred = answerConcept(answerText(output));
    return pred !== null && pred === answerConcept(example.answer);
  },
  checkReasoning: checkProsqaReasoning,
};
