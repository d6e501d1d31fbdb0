/**
 * Written reasoning over a ProsQA graph, as node ids, in three forms (issue 21):
 * - the path: ProsQA's own steps, one edge per step from the queried person to the answer (the
 *   files' `steps`; `pathFromSteps` reads it back from the English sentences);
 * - the frontier trace: breadth-first search from the queried person, step k = every node
 *   reached within k hops (the person excluded), in discovery order (the order of the previous
 *   step, then each listed node's children in `g.edges`' order — the files' edge list, which is not
 *   the question's sentence order), ending at the first step that reaches an option;
 * - the expansion trace: the same search one lookup per step — step k expands the k-th node of the
 *   queue of discovered nodes (the person first, then nodes in the order they were first written)
 *   and lists all its children in `g.edges`' order (the symbolic rendering hands it the question's
 *   edge order), ending at the first step whose children include an option.
 * The distractor is never reachable (an invariant of the files), so the option reached is the
 * target. The verifiers check a trace against the graph alone: every step follows real edges, the
 * frontier trace is complete (lists everything reachable within k hops), the expansion trace
 * expands the right node and lists exactly its children, and each stops where it should.
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

/**
 * The expansion trace: one line per expanded node, [u, ...u's children], breadth-first from the
 * root in discovery order, until a line's children include an option. Children are listed in
 * `g.edges`' order, already discovered ones included (a line is the lookup of u's children).
 */
export function expansionTrace(g: ProsqaGraph): number[][] {
  const ch = childLists(g.symbols.length, g.edges);
  const queue = [g.root];
  const discovered = new Set(queue);
  const lines: number[][] = [];
  for (let i = 0; i < queue.length; i++) {
    const u = queue[i];
    lines.push([u, ...ch[u]]);
    if (ch[u].includes(g.target) || ch[u].includes(g.negTarget)) return lines;
    for (const v of ch[u]) {
      if (discovered.has(v)) continue;
      discovered.add(v);
      queue.push(v);
    }
  }
  throw new Error(`expansionTrace: no option is reachable from ${g.symbols[g.root]}`);
}

/** What is wrong with `written` as exactly u's `children`, as a set: a repeat, an invented child, a missing one. */
export function childProblems(
  g: ProsqaGraph,
  u: number,
  written: readonly number[],
  children: readonly number[],
): string[] {
  const name = (v: number) => g.symbols[v] ?? `#${v}`;
  const list = (vs: readonly number[]) => vs.map(name).join(', ');
  const bad: string[] = [];
  if (new Set(written).size !== written.length) bad.push('lists a child twice');
  const invented = written.filter((v) => !children.includes(v));
  if (invented.length > 0)
    bad.push(`${list(invented)} ${invented.length === 1 ? 'is not a child' : 'are not children'} of ${name(u)}`);
  const missing = children.filter((v) => !written.includes(v));
  if (missing.length > 0)
    bad.push(`misses ${name(u)}'s ${missing.length === 1 ? 'child' : 'children'} ${list(missing)}`);
  return bad;
}

/**
 * Problems with an expansion trace (empty when it is right). Each step [u, c1, c2, …] must expand
 * the next node of the breadth-first queue — the first discovered node not yet expanded, the
 * person first and then nodes in the order the trace first lists them — and list exactly u's
 * children, as a set: their order is free, and a reordered line only changes the order in which
 * the queue expands them (children the step misses still join the queue, after the listed ones, so
 * one missing child is one problem). The trace stops at the first step whose children include an
 * option, not earlier and not later.
 */
export function expansionProblems(g: ProsqaGraph, trace: readonly (readonly number[])[]): string[] {
  const ch = childLists(g.symbols.length, g.edges);
  const bad: string[] = [];
  const name = (v: number) => g.symbols[v] ?? `#${v}`;
  const queue = [g.root];
  const discovered = new Set(queue);
  const expanded = new Set<number>();
  for (const [k, line] of trace.entries()) {
    const at = `step ${k + 1}`;
    const [u, ...written] = line;
    if (u === undefined) bad.push(`${at}: expands no node`);
    else {
      const next = queue.find((v) => !expanded.has(v));
      if (u !== next)
        bad.push(
          next === undefined
            ? `${at}: expands ${name(u)}, but every node reached is expanded already`
            : `${at}: expands ${name(u)}, but the next node to expand is ${name(next)}`,
        );
      expanded.add(u);
      const children = ch[u] ?? [];
      bad.push(...childProblems(g, u, written, children).map((p) => `${at}: ${p}`));
      const missing = children.filter((v) => !written.includes(v));
      for (const v of [...written.filter((c) => children.includes(c)), ...missing]) {
        if (discovered.has(v)) continue;
        discovered.add(v);
        queue.push(v);
      }
    }
    const hasOption = written.includes(g.target) || written.includes(g.negTarget);
    if (hasOption !== (k === trace.length - 1))
      bad.push(hasOption ? `${at}: reaches an option but the trace goes on` : `${at}: the last step reaches no option`);
  }
  if (trace.length === 0) bad.push('the trace is empty');
  return bad;
}

/**
 * Problems with a lookup (empty when it is right): the expansion trace's first step alone, the
 * asked person and exactly its children, as a set. It is the one read a written trace of either
 * breadth-first form starts with, trained alone by the lookup probe.
 */
export function lookupProblems(g: ProsqaGraph, trace: readonly (readonly number[])[]): string[] {
  if (trace.length !== 1) return [`a lookup is one step, got ${trace.length}`];
  const [u, ...written] = trace[0];
  const name = (v: number) => g.symbols[v] ?? `#${v}`;
  if (u !== g.root) return [`expands ${u === undefined ? 'no node' : name(u)}, not the asked person ${name(g.root)}`];
  return childProblems(g, u, written, childLists(g.symbols.length, g.edges)[u]);
}
