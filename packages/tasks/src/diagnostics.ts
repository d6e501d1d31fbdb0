/**
 * What a generation's written chain says beside its answer (lab evaluation diagnostics):
 * - `chain`: a class of the task's verdict on the chain (`checkReasoning`), grouped across tasks —
 *   'sound', 'syntax' (unreadable or empty), 'wrong-arithmetic', 'unavailable-numbers' (uses a
 *   number it does not have), 'rule-violation' (a move the rules forbid), 'hallucinated-edge',
 *   'broken-chain', 'misses-target' (ends elsewhere, or leaves numbers unused); null when the task
 *   does not check chains or there is no written chain;
 * - `agrees`: whether the answer is what the chain ends at (Countdown: the answer's value equals
 *   the chain's last number, both read in plain digits; ProsQA: the answer's concept is the last step's; GSM8K: the answer
 *   equals the chain's last number); null without a chain;
 * - `option` (ProsQA): which option the answer names — 'first', 'second' (as listed) or 'neither' —
 *   and `lessMentioned`, whether that option is the one the question mentions less often.
 */
import type { Example, Task } from './example.js';
import { answerText } from './answer.js';
import { parseExpr, type Expr } from './countdown/expr.js';
import { applyOp, ratEq, type Rational } from './countdown/rules.js';
import { parseNumber } from './countdown/verify.js';
import { readNumbers, type NumberFormat } from './countdown/reasoning.js';
import { numbersEqual } from './numbers.js';
import { lessMentionedOption, prosqaOptions } from './prosqa/options.js';
import { answerConcept } from './prosqa/task.js';

export type ChainClass =
  | 'sound'
  | 'syntax'
  | 'wrong-arithmetic'
  | 'unavailable-numbers'
  | 'rule-violation'
  | 'hallucinated-edge'
  | 'broken-chain'
  | 'misses-target';
export const CHAIN_CLASSES: readonly ChainClass[] = [
  'sound',
  'syntax',
  'wrong-arithmetic',
  'unavailable-numbers',
  'rule-violation',
  'hallucinated-edge',
  'broken-chain',
  'misses-target',
];

export interface ChainDiagnosis {
  chain: ChainClass | null;
  agrees: boolean | null;
  option?: 'first' | 'second' | 'neither';
  lessMentioned?: boolean;
}

/** Every verdict reason of the tasks' `checkReasoning` (Countdown's verifier, ProsQA's path check) → its class. */
const VERDICT_CLASS: Record<string, ChainClass> = {
  ok: 'sound',
  'shortest-path': 'sound',
  'longer-path': 'sound',
  frontier: 'sound', // a complete, correct frontier trace (symbolic ProsQA)
  expansion: 'sound', // a correct expansion trace: every step the right node and exactly its children (symbolic ProsQA)
  'expansion-queue': 'sound', // a correct queue trace: the expansion trace with each line's queue right (symbolic ProsQA)
  'expansion-queue-done': 'sound', // the same with each line's list of the nodes expanded so far right (symbolic ProsQA)
  'expansion-queue-done-cut': 'sound', // the same with the last line's children up to the first option (symbolic ProsQA)
  lookup: 'sound', // the lookup probe's line: the asked person and exactly its children (symbolic ProsQA)
  echo: 'sound', // the echo probe's lines: the grouped question copied line by line (symbolic ProsQA)
  empty: 'syntax',
  syntax: 'syntax',
  'bad-number': 'syntax',
  unparsed: 'syntax',
  'wrong-arithmetic': 'wrong-arithmetic',
  'numbers-mismatch': 'unavailable-numbers',
  'wrong-state': 'unavailable-numbers', // a written state ("[18 62]") that is not the numbers left
  'negative-intermediate': 'rule-violation',
  'inexact-division': 'rule-violation',
  'division-by-zero': 'rule-violation',
  'hallucinated-edge': 'hallucinated-edge',
  'hallucinated-node': 'hallucinated-edge', // a frontier or expansion step names a node the question does not have
  'wrong-frontier': 'broken-chain', // a frontier step that is not the set reached so far
  'wrong-expansion': 'broken-chain', // an expansion step of the wrong node, with wrong children, or a wrong stop
  'wrong-queue': 'broken-chain', // a queue-trace line of the wrong node, children, queue or done list, or a wrong stop
  'wrong-lookup': 'broken-chain', // the lookup probe's line: another node, or not exactly its children
  'wrong-echo': 'broken-chain', // the echo probe: a line that is not the question's group at that place
  'broken-chain': 'broken-chain',
  'wrong-judgement': 'broken-chain', // a Countdown move marked a dead end (" x") whose state has a solution
  'unused-numbers': 'misses-target',
  'wrong-value': 'misses-target',
  'wrong-target': 'misses-target',
};

/** The class of a `checkReasoning` verdict reason (an unknown reason counts as 'syntax'). */
export function chainClass(reason: string): ChainClass {
  return VERDICT_CLASS[reason] ?? 'syntax';
}

/** The exact value of a Countdown expression, or null when it does not parse or divides by zero. */
export function expressionValue(text: string): Rational | null {
  let tree: Expr;
  try {
    tree = parseExpr(text.replace(/=.*$/s, ''));
  } catch {
    return null;
  }
  const value = (e: Expr): Rational | null => {
    if (e.kind === 'num') return parseNumber(e.text);
    const [a, b] = [value(e.left), value(e.right)];
    if (!a || !b) return null;
    try {
      return applyOp(a, e.op, b);
    } catch {
      return null;
    }
  };
  return value(tree);
}

const lastNumber = (text: string): string | null => /(-?\d[\d,]*(?:\.\d+)?)(?!.*\d)/s.exec(text)?.[1] ?? null;

function agreement(task: Task, ex: Example, reasoning: string, answer: string): boolean {
  if (task.name === 'prosqa') {
    const last = reasoning
      .split('.')
      .map((s) => s.trim())
      .filter((s) => s !== '')
      .pop();
    return last !== undefined && answerConcept(last) !== null && answerConcept(last) === answerConcept(answer);
  }
  if (task.name === 'countdown') {
    // Both read in plain digits: a reversed-digit chain and answer ("62-(29-11)" written "26-(92-11)").
    const format = (ex.meta as { numberFormat?: NumberFormat } | undefined)?.numberFormat;
    const end = lastNumber(readNumbers(reasoning, format));
    if (end === null) return false;
    const [v, c] = [expressionValue(readNumbers(answer, format)), parseNumber(end.replace(/,/g, ''))];
    return v !== null && c !== null && ratEq(v, c);
  }
  const end = lastNumber(reasoning);
  return end !== null && numbersEqual(answer, end);
}

/**
 * Diagnoses one generation: `reasoning` is the written chain (the text before `###`, possibly
 * empty; null for a method that writes none), `output` the answer as scored (the text after `###`).
 */
export function diagnoseChain(task: Task, ex: Example, reasoning: string | null, output: string): ChainDiagnosis {
  const answer = answerText(output);
  const written = reasoning !== null; // an empty chain from a method that writes one counts (as 'syntax')
  const out: ChainDiagnosis = {
    chain: written && task.checkReasoning ? chainClass(task.checkReasoning(ex, reasoning).reason) : null,
    agrees: written ? agreement(task, ex, reasoning, answer) : null,
  };
  if (task.name === 'prosqa') {
    const o = prosqaOptions(ex);
    const chosen = answerConcept(answer);
    const at = o.order.findIndex((n) => o.graph.symbols[n] === chosen);
    out.option = at === 0 ? 'first' : at === 1 ? 'second' : 'neither';
    out.lessMentioned = at >= 0 && o.order[at] === lessMentionedOption(o);
  }
  return out;
}
