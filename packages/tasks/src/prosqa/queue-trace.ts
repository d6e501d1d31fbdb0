/**
 * The queue trace (issue 21): the expansion trace (traces.ts) with its bookkeeping written out.
 * Each line expands one node and lists all its children, as the expansion trace does, then states
 * the queue left after it: the nodes discovered and not yet expanded, in the order breadth-first
 * search expands them (the previous line's queue without its first node, then this line's children
 * not discovered before). The next line expands the first node of that queue, so which node comes
 * next is read from the line above instead of from the whole trace. The line whose children include
 * an option is the last, and states no queue.
 *
 * Trained on the expansion trace alone, a 4 × 128 model copied every group of the question right
 * yet lost the breadth-first order after five or six lines (docs/results/prosqa-references.md, "The headed echo as one
 * line"); this form tests whether carrying the queue removes that wall.
 *
 * The done form (`expansion-queue-done`) also writes, after the queue, the nodes expanded so far
 * (the root first, this line's node last). Whether a child
 * was discovered before is then a look at the line above (its queue and its done list) instead of
 * at the whole trace: the queue form learnt to follow its queue on every line but updated only a
 * third of its queues right, mostly by dropping a new child.
 */
import { childLists, type ProsqaGraph } from './graph.js';
import { childProblems } from './traces.js';

/**
 * One line of the queue trace: the expanded node, its children, the queue after it and the nodes
 * expanded so far, the root first and this line's node last (both null on the last line).
 */
export interface QueueStep {
  node: number;
  children: number[];
  queue: number[] | null;
  done?: number[] | null;
}

/**
 * The queue trace of a graph, breadth-first from the root, children in `g.edges`' order. With
 * `cut` (the cut form) the last line lists the children only up to the first option.
 */
export function queueTrace(g: ProsqaGraph, cut = false): QueueStep[] {
  const ch = childLists(g.symbols.length, g.edges);
  const isOption = (v: number) => v === g.target || v === g.negTarget;
  const discovered = new Set([g.root]);
  let queue = [g.root];
  const done: number[] = [];
  const steps: QueueStep[] = [];
  while (queue.length > 0) {
    const [u, ...rest] = queue;
    const option = ch[u].findIndex(isOption);
    if (option >= 0)
      return [...steps, { node: u, children: ch[u].slice(0, cut ? option + 1 : undefined), queue: null, done: null }];
    const fresh = ch[u].filter((v) => !discovered.has(v));
    for (const v of fresh) discovered.add(v);
    queue = [...rest, ...fresh];
    done.push(u);
    steps.push({ node: u, children: [...ch[u]], queue, done: [...done] });
  }
  throw new Error(`queueTrace: no option is reachable from ${g.symbols[g.root]}`);
}

/**
 * Problems with a queue trace (empty when it is right). Each line must expand the first node of
 * the queue (the root first), list exactly its children as a set, and, unless it reaches an
 * option, state the queue that follows: the remaining queue, then its children not discovered
 * before in the order the line writes them (children it misses still join, after the written ones).
 * The line that reaches an option is the last and states no queue. With `withDone` (the done form)
 * a line with a queue must also state the nodes expanded so far, in order, the root first. With
 * `cut` (the cut form) the line that reaches an option lists its node's children only up to the
 * first option (in the question's order), so a child after it is a problem.
 */
export function queueProblems(g: ProsqaGraph, trace: readonly QueueStep[], withDone = false, cut = false): string[] {
  return queueFindings(g, trace, withDone, cut).map((f) => f.text);
}

/** What kind of slip a queue-trace problem is (how prosqa-trace-stats tallies each trace's first). */
export type QueueProblemKind =
  | 'node' // expands another node than the queue's first
  | 'children' // lists children the node does not have, or misses some
  | 'queue-misses' // a stated queue without a node it should hold (a new child dropped)
  | 'queue-adds' // a stated queue with a node it should not hold (one discovered before re-added)
  | 'queue-misses-and-adds'
  | 'queue-order' // the right nodes in another order
  | 'no-queue' // a line before an option without its queue
  | 'done' // the done form's list of expanded nodes wrong or missing
  | 'goes-on' // a line reaches an option and the trace goes on (or states a queue or done list there)
  | 'stops' // the last line reaches no option
  | 'empty';

export interface QueueFinding {
  /** 1-based line; 0 for the empty trace. */
  step: number;
  kind: QueueProblemKind;
  text: string;
}

/** queueProblems with each problem's line and kind. */
export function queueFindings(
  g: ProsqaGraph,
  trace: readonly QueueStep[],
  withDone = false,
  cut = false,
): QueueFinding[] {
  const ch = childLists(g.symbols.length, g.edges);
  const name = (v: number) => g.symbols[v] ?? `#${v}`;
  const list = (vs: readonly number[]) => (vs.length === 0 ? 'empty' : vs.map(name).join(' '));
  const bad: QueueFinding[] = [];
  const discovered = new Set([g.root]);
  let queue = [g.root];
  const done: number[] = [];
  for (const [k, { node: u, children: written, queue: stated, done: statedDone }] of trace.entries()) {
    const at = `step ${k + 1}`;
    const add = (kind: QueueProblemKind, text: string) => bad.push({ step: k + 1, kind, text: `${at}: ${text}` });
    if (u !== queue[0])
      add(
        'node',
        queue.length === 0
          ? `expands ${name(u)}, but the queue is empty`
          : `expands ${name(u)}, but the queue starts with ${name(queue[0])}`,
      );
    discovered.add(u);
    done.push(u);
    const children = ch[u] ?? [];
    const hasOption = written.includes(g.target) || written.includes(g.negTarget);
    const firstOption = children.findIndex((v) => v === g.target || v === g.negTarget);
    const expected = cut && hasOption && firstOption >= 0 ? children.slice(0, firstOption + 1) : children;
    for (const p of childProblems(g, u, written, expected)) add('children', p);
    const missing = children.filter((v) => !written.includes(v));
    const fresh = [...written.filter((v) => children.includes(v)), ...missing].filter((v) => !discovered.has(v));
    for (const v of fresh) discovered.add(v);
    queue = [...queue.filter((v) => v !== u), ...fresh];
    if (hasOption !== (k === trace.length - 1))
      add(
        hasOption ? 'goes-on' : 'stops',
        hasOption ? 'reaches an option but the trace goes on' : 'the last step reaches no option',
      );
    if (hasOption && stated !== null) add('goes-on', 'reaches an option, yet states a queue');
    if (!hasOption && stated === null) add('no-queue', `states no queue (expected ${list(queue)})`);
    if (!hasOption && stated !== null && (stated.length !== queue.length || stated.some((v, i) => v !== queue[i]))) {
      const misses = queue.some((v) => !stated.includes(v));
      const adds = stated.some((v) => !queue.includes(v)) || new Set(stated).size !== stated.length;
      const kind =
        misses && adds ? 'queue-misses-and-adds' : misses ? 'queue-misses' : adds ? 'queue-adds' : 'queue-order';
      add(kind, `states the queue ${list(stated)}, expected ${list(queue)}`);
    }
    if (withDone && !hasOption && (statedDone ?? null) === null)
      add('done', `states no done list (expected ${list(done)})`);
    if (withDone && hasOption && statedDone) add('goes-on', 'reaches an option, yet states a done list');
    if (withDone && !hasOption && statedDone && statedDone.join(' ') !== done.join(' '))
      add('done', `states the done list ${list(statedDone)}, expected ${list(done)}`);
  }
  if (trace.length === 0) bad.push({ step: 0, kind: 'empty', text: 'the trace is empty' });
  return bad;
}
