/**
 * ProsQA's path verdict, shared by the English (reasoning.ts) and symbolic (symbolic-reasoning.ts)
 * checkers, which differ only in how a step is written: the steps must chain from the asked
 * person along facts of the question to the target ('shortest-path' or 'longer-path'), else
 * 'unparsed', 'hallucinated-edge', 'broken-chain' or 'wrong-target' at the first problem.
 */
import type { ReasoningVerdict } from '../example.js';
import { bfsDistances, childLists, type ProsqaGraph } from './graph.js';

/** One written step: where it stands (for messages), the two names it states (null: it did not parse) and the form expected. */
export interface PathStep {
  where: string;
  names: readonly [string, string] | null;
  expected: string;
}

export function checkPathSteps(g: ProsqaGraph, steps: PathStep[]): ReasoningVerdict {
  const id = new Map(g.symbols.map((s, i) => [s, i]));
  const edges = new Set(g.edges.map(([u, v]) => `${u}>${v}`));
  let at = g.root;
  for (const { where, names, expected } of steps) {
    if (!names) return { ok: false, reason: 'unparsed', detail: `${where}: not ${expected}` };
    const [from, to] = [id.get(names[0]), id.get(names[1])];
    if (from === undefined || to === undefined)
      return {
        ok: false,
        reason: 'hallucinated-edge',
        detail: `${where}: names ${from === undefined ? names[0] : names[1]}, not in the question`,
      };
    if (!edges.has(`${from}>${to}`))
      return { ok: false, reason: 'hallucinated-edge', detail: `${where}: not a fact of the question` };
    if (from !== at)
      return {
        ok: false,
        reason: 'broken-chain',
        detail: `${where}: starts from ${g.symbols[from]}, the chain is at ${g.symbols[at]}`,
      };
    at = to;
  }
  if (at !== g.target)
    return {
      ok: false,
      reason: 'wrong-target',
      detail: `the chain ends at ${g.symbols[at]}, the answer is ${g.symbols[g.target]}`,
    };
  const shortest = bfsDistances(childLists(g.symbols.length, g.edges), g.root)[g.target];
  return steps.length === shortest
    ? { ok: true, reason: 'shortest-path', detail: `${shortest} steps` }
    : { ok: true, reason: 'longer-path', detail: `${steps.length} steps, the shortest has ${shortest}` };
}
