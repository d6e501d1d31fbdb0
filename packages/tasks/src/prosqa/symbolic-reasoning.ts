/**
 * Whether written reasoning in the symbolic rendering (symbolic.ts) is sound against the
 * question's graph. "> u v" lines are ProsQA's path and get the English checker's verdicts
 * (reasoning.ts: 'shortest-path', 'longer-path', 'hallucinated-edge', 'broken-chain',
 * 'wrong-target'); ": …" lines are a frontier trace: 'frontier' when traces.ts' verifier finds
 * nothing wrong, else 'wrong-frontier' with the first problem. Unknown names are
 * 'hallucinated-edge' / 'hallucinated-node'; other lines 'unparsed'.
 */
import type { Example, ReasoningVerdict } from '../example.js';
import { prosqaGraph } from './load.js';
import { checkPathSteps } from './path-check.js';
import { FRONTIER_MARK, PATH_MARK, stepNames } from './symbolic.js';
import { frontierProblems } from './traces.js';

export function checkSymbolicReasoning(example: Example, reasoning: string): ReasoningVerdict {
  const g = prosqaGraph(example);
  const id = new Map(g.symbols.map((s, i) => [s, i]));
  const lines = reasoning
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '');
  if (lines.length === 0) return { ok: false, reason: 'empty', detail: 'no steps' };
  if (lines[0].startsWith(FRONTIER_MARK)) {
    const trace: number[][] = [];
    for (const [i, line] of lines.entries()) {
      const names = stepNames(line, FRONTIER_MARK);
      if (!names)
        return { ok: false, reason: 'unparsed', detail: `step ${i + 1} "${line}": not "${FRONTIER_MARK} n1 n2 …"` };
      const unknown = names.find((s) => !id.has(s));
      if (unknown !== undefined)
        return { ok: false, reason: 'hallucinated-node', detail: `step ${i + 1}: ${unknown} is not in the question` };
      trace.push(names.map((s) => id.get(s)!));
    }
    const problems = frontierProblems(g, trace);
    return problems.length === 0
      ? { ok: true, reason: 'frontier', detail: `${trace.length} steps` }
      : { ok: false, reason: 'wrong-frontier', detail: problems[0] };
  }
  return checkPathSteps(
    g,
    lines.map((line, i) => {
      const pair = stepNames(line, PATH_MARK);
      return {
        where: `step ${i + 1} "${line}"`,
        names: pair && pair.length === 2 ? [pair[0], pair[1]] : null,
        expected: `"${PATH_MARK} u v"`,
      };
    }),
  );
}
