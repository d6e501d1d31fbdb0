/**
 * Whether written ProsQA reasoning is a path through the question's graph, in the spirit of
 * Coconut's path analysis (Hao et al. 2024, §5 / Fig. 5: correct path, longer path, hallucination,
 * wrong target). Reasoning in the symbolic rendering (lines starting ">" or ":") goes to
 * symbolic-reasoning.ts. English steps are the sentences "Name is a X." / "Every X is a Y." before `###`.
 * Verdicts: 'shortest-path' and 'longer-path' (sound: the root person to the target along real
 * edges), 'hallucinated-edge', 'broken-chain', 'wrong-target', 'unparsed', 'empty'.
 */
import type { Example, ReasoningVerdict } from '../example.js';
import { bfsDistances, childLists } from './graph.js';
import { prosqaGraph } from './load.js';
import { checkSymbolicReasoning } from './symbolic-reasoning.js';
import { FRONTIER_MARK, PATH_MARK } from './symbolic.js';

const STEP = /^(?:Every\s+([A-Za-z]+)|([A-Z][a-z]+))\s+is\s+an?\s+([A-Za-z]+)$/;

export function checkProsqaReasoning(example: Example, reasoning: string): ReasoningVerdict {
  const first = reasoning.trimStart();
  if (first.startsWith(PATH_MARK) || first.startsWith(FRONTIER_MARK)) return checkSymbolicReasoning(example, reasoning);
  const g = prosqaGraph(example);
  const id = new Map(g.symbols.map((s, i) => [s, i]));
  const edges = new Set(g.edges.map(([u, v]) => `${u}>${v}`));
  const sentences = reasoning.split('.').map((s) => s.trim()).filter((s) => s !== '');
  if (sentences.length === 0) return { ok: false, reason: 'empty', detail: 'no steps' };
  let at = g.root;
  for (const [i, s] of sentences.entries()) {
    const m = STEP.exec(s);
    const from = m ? id.get(m[1] ?? m[2]) : undefined;
    const to = m ? id.get(m[3]) : undefined;
    const where = `step ${i + 1} "${s}."`;
    if (!m) return { ok: false, reason: 'unparsed', detail: `${where}: not "Name is a X." / "Every X is a Y."` };
    if (from === undefined || to === undefined) return { ok: false, reason: 'hallucinated-edge', detail: `${where}: names ${from === undefined ? m[1] ?? m[2] : m[3]}, not in the question` };
    if (!edges.has(`${from}>${to}`)) return { ok: false, reason: 'hallucinated-edge', detail: `${where}: not a fact of the question` };
    if (from !== at) return { ok: false, reason: 'broken-chain', detail: `${where}: starts from ${g.symbols[from]}, the chain is at ${g.symbols[at]}` };
    at = to;
  }
  if (at !== g.target) return { ok: false, reason: 'wrong-target', detail: `the chain ends at ${g.symbols[at]}, the answer is ${g.symbols[g.target]}` };
  const shortest = bfsDistances(childLists(g.symbols.length, g.edges), g.root)[g.target];
  return sentences.length === shortest
    ? { ok: true, reason: 'shortest-path', detail: `${shortest} steps` }
    : { ok: true, reason: 'longer-path', detail: `${sentences.length} steps, the shortest has ${shortest}` };
}
