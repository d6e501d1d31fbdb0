/**
 * Whether written ProsQA reasoning is a path through the question's graph, in the spirit of
 * Coconut's path analysis (Hao et al. 2024, §5 / Fig. 5: correct path, longer path, hallucination,
 * wrong target). Reasoning in the symbolic rendering (lines starting ">", ":" or "+") goes to
 * symbolic-reasoning.ts. English steps are the sentences "Name is a X." / "Every X is a Y." before `###`.
 * Verdicts: 'shortest-path' and 'longer-path' (sound: the root person to the target along real
 * edges), 'hallucinated-edge', 'broken-chain', 'wrong-target', 'unparsed', 'empty'.
 */
import type { Example, ReasoningVerdict } from '../example.js';
import { prosqaGraph } from './load.js';
import { checkPathSteps } from './path-check.js';
import { checkSymbolicReasoning } from './symbolic-reasoning.js';
import { EXPANSION_MARK, FRONTIER_MARK, PATH_MARK } from './symbolic.js';

const STEP = /^(?:Every\s+([A-Za-z]+)|([A-Z][a-z]+))\s+is\s+an?\s+([A-Za-z]+)$/;

export function checkProsqaReasoning(example: Example, reasoning: string): ReasoningVerdict {
  const first = reasoning.trimStart();
  if ([PATH_MARK, FRONTIER_MARK, EXPANSION_MARK].some((m) => first.startsWith(m)))
    return checkSymbolicReasoning(example, reasoning);
  const sentences = reasoning
    .split('.')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  if (sentences.length === 0) return { ok: false, reason: 'empty', detail: 'no steps' };
  return checkPathSteps(
    prosqaGraph(example),
    sentences.map((s, i) => {
      const m = STEP.exec(s);
      return {
        where: `step ${i + 1} "${s}."`,
        names: m ? [m[1] ?? m[2], m[3]] : null,
        expected: '"Name is a X." / "Every X is a Y."',
      };
    }),
  );
}
