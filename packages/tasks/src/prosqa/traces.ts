/**
 * Written reasoning over a ProsQA graph, as node ids, in two forms (issue 21):
 * - the path: ProsQA's own steps, one edge per step from the queried person to the answer (the
 *   files' `steps`; `pathFromSteps` reads it back from the English sentences);
 * - the frontier trace: breadth-first search from the queried person, step k = every node
 *   reached within k hops (the person excluded), in discovery order (the order of the previous
 *   step, then each listed node's children in the question's edge order), ending at the first step
 *   that reaches an option. The distractor is never reachable (an invariant of the files), so that
 *   option is the target.
 * The verifiers check a trace against the graph alone: every step follows real edges, the
 * frontier trace is complete (lists everything reachable within k hops) and stops where it should.
 */
import { childLists, edgeSentence, parentCounts, type ProsqaGraph } from './graph.js';

/** Node ids of the path root → … → target stated by English steps ("Name is a X." / "Every X is a Y."). */
export function pathFromSteps(g: ProsqaGraph, steps: readonly string[]): number[] {
  const n = g.symbols.length;
  const ch = childLists(n, g.edges);
  const parents = parentCounts(n, g.edges);
  const isPerson = (i: number) => parents[i] === 0;
  const path = [g.root];
  for (const [i, s] of steps.entries()) {
    const at = path[path.length - 1];
    const next = ch[at].find((v) => edgeSentence(g.symbols, at, v, isPerson) === s);
    if (next === undefined)
      throw new Error(`steps[${i}] ${JSON.stringify(s)} is not an edge out of "${g.symbols[at]}"`);
    path.push(next);
  }
  return path;
}

/** The frontier trace: step k lists every node within k hops of the root, until one is an option. */
export function frontierTrace(g: ProsqaGraph): number[][] {
  const ch = childLists(g.symbols.length, g.edges);
  const reached = new Set<number>([g.root]);
  let listed: number[] = [];
  let frontier = [g.root];
  const steps: number[][] = [];
  while (frontier.length > 0) {
    const next: number[] = [];
    for (const u of frontier) {
      for (const v of ch[u]) {
        if (reached.has(v)) continue;
        reached.add(v);
        next.push(v);
      }
    }
    if (next.length === 0) break;
    listed = [...listed, ...next];
    steps.push(listed);
    if (listed.includes(g.target) || listed.includes(g.negTarget)) return steps;
    frontier = next;
  }
  throw new Error(`frontierTrace: no option is reachable from ${g.symbols[g.root]}`);
}

/** Problems with a path of node ids (empty when it is a real path from the root to the target). */
export function pathProblems(g: ProsqaGraph, path: readonly number[]): string[] {
  const edges = new Set(g.edges.map(([u, v]) => `${u}>${v}`));
  const bad: string[] = [];
  if (path[0] !== g.root) bad.push(`the path starts at ${g.symbols[path[0]] ?? path[0]}, not at ${g.symbols[g.root]}`);
  for (let i = 1; i < path.length; i++) {
    if (!edges.has(`${path[i - 1]}>${path[i]}`))
      bad.push(`step ${i}: ${g.symbols[path[i - 1]]} → ${g.symbols[path[i]]} is not an edge`);
  }
  if (path[path.length - 1] !== g.target)
    bad.push(`the path ends at ${g.symbols[path[path.length - 1]]}, not at the target ${g.symbols[g.target]}`);
  return bad;
}

/**
 * Problems with a frontier trace (empty when it is right): each step keeps the previous one and
 * adds only children of it (real edges), each step is complete (every node within k hops is
 * listed, none twice), and it stops at the first step that lists an option.
 */
export function frontierProblems(g: ProsqaGraph, trace: readonly (readonly number[])[]): string[] {
  const ch = childLists(g.symbols.length, g.edges);
  const bad: string[] = [];
  const name = (v: number) => g.symbols[v] ?? `#${v}`;
  let prev: readonly number[] = [];
  let within = new Set<number>([g.root]); // nodes within k hops, root included
  for (const [k, step] of trace.entries()) {
    const at = `step ${k + 1}`;
    if (new Set(step).size !== step.length) bad.push(`${at}: lists a node twice`);
    if (prev.some((v, i) => step[i] !== v)) bad.push(`${at}: does not start with step ${k}'s nodes`);
    const sources = [g.root, ...prev];
    for (const v of step.slice(prev.length)) {
      if (!sources.some((u) => ch[u].includes(v)))
        bad.push(`${at}: ${name(v)} is not a child of a node reached before`);
    }
    const nextWithin = new Set(within);
    for (const u of within) for (const v of ch[u]) nextWithin.add(v);
    within = nextWithin;
    const missing = [...within].filter((v) => v !== g.root && !step.includes(v));
    if (missing.length > 0) bad.push(`${at}: incomplete, misses ${missing.map(name).join(', ')}`);
    const hasOption = step.includes(g.target) || step.includes(g.negTarget);
    if (hasOption !== (k === trace.length - 1))
      bad.push(hasOption ? `${at}: reaches an option but the trace goes on` : `${at}: the last step reaches no option`);
    prev = step;
  }
  if (trace.length === 0) bad.push('the trace is empty');
  return bad;
}
