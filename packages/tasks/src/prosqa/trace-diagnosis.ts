/**
 * Where a model's written breadth-first ProsQA trace (expansion, expansion-queue or -done, symbolic
 * renderings) leaves the right one, read from a generation alone: the rendered question states the
 * graph, the gold answer names the target, so the right trace is rebuilt without the dataset.
 * Per trace: the lines that copy a node's children exactly (the lookup), the first line that
 * differs from the right trace (the breadth-first order), whether it wrote the right trace and went
 * on (the stop), and for queue traces whether each line expands the first node of the queue the
 * line above states and states the queue that line's own children make (the bookkeeping, judged
 * against what the trace itself wrote, so one early slip does not hide later steps done right), and
 * in the done form whether each done list is the nodes the trace's own lines expanded so far.
 */
import type { ProsqaGraph } from './graph.js';
import { queueFindings, type QueueProblemKind, type QueueStep } from './queue-trace.js';
import { queueLineNames } from './symbolic-reasoning.js';
import { breadthFirstLines, parseSymbolicQuestion } from './symbolic.js';

/** The written forms a trace diagnosis reads. */
export const DIAGNOSED_REASONING = [
  'expansion',
  'expansion-queue',
  'expansion-queue-done',
  'expansion-queue-done-cut',
] as const;
export type DiagnosedReasoning = (typeof DIAGNOSED_REASONING)[number];

/** One written trace against the right one. */
export interface TraceDiagnosis {
  lines: number;
  /** Lines that name a node of the question and exactly its children in the question's order. */
  groupCopies: number;
  /** The first line (1-based) that is not the right trace's line there; null when the trace is the right one. */
  firstDifference: number | null;
  /** The right trace written whole, then more lines. */
  wentOn: boolean;
  /** Lines after the first whose node is the first of the line above's stated queue, of those after a line with a queue. */
  followsQueue: [number, number];
  /** Lines with a queue that state the one their own line makes from the line above's (or the root's), of lines with a queue. */
  updatesQueue: [number, number];
  /** Lines with a done list that list the nodes the trace's lines expanded so far, of lines with a done list. */
  updatesDone: [number, number];
  /** Queue forms: the kind of the trace's first problem by queue-trace.ts' checker (null: none; the expansion form: null). */
  firstProblem: FirstProblem | null;
}

/**
 * A queue trace's first problem: the checker's kind on the lines up to the first that does not
 * parse ('unparsed' when those lines are right). A name the question lacks is a node of its own, so
 * it is judged where it stands: in a queue a node that should not be there, as a child not a child.
 */
export type FirstProblem = QueueProblemKind | 'unparsed';

function firstQueueProblem(
  g: ProsqaGraph,
  parsed: ReturnType<typeof queueLineNames>[],
  withDone: boolean,
  cut: boolean,
): FirstProblem | null {
  const symbols = [...g.symbols];
  const id = new Map(symbols.map((s, i) => [s, i]));
  const idOf = (s: string) => id.get(s) ?? (id.set(s, symbols.push(s) - 1), symbols.length - 1);
  const trace: QueueStep[] = [];
  for (const p of parsed) {
    if (!p) break;
    const ids = (names: string[] | null) => names && names.map(idOf);
    const [node, ...children] = ids(p.names)!;
    trace.push({ node, children, queue: ids(p.queue), done: ids(p.done) });
  }
  const whole = trace.length === parsed.length;
  const first = queueFindings({ ...g, symbols }, trace, withDone, cut).find(
    (f) => whole || !(f.kind === 'stops' && f.step === trace.length), // a cut-short trace's stop is not judged
  );
  if (first && (first.kind !== 'empty' || whole)) return first.kind;
  return whole ? null : 'unparsed';
}

/** The graph a rendered question states, the options' reachable one (`gold`) as target. */
export function graphOfQuestion(question: string, gold: string): ProsqaGraph {
  const q = parseSymbolicQuestion(question);
  const symbols = [...new Set([q.root, ...q.options, ...q.edges.flat()])];
  const id = new Map(symbols.map((s, i) => [s, i]));
  if (!q.options.includes(gold))
    throw new Error(`the answer ${gold} is not one of the options ${q.options.join(', ')}`);
  return {
    symbols,
    edges: q.edges.map(([u, v]): [number, number] => [id.get(u)!, id.get(v)!]),
    root: id.get(q.root)!,
    target: id.get(gold)!,
    negTarget: id.get(q.options.find((o) => o !== gold)!)!,
  };
}

export function diagnoseTrace(
  question: string,
  gold: string,
  written: string,
  reasoning: DiagnosedReasoning,
  headed: boolean,
): TraceDiagnosis {
  const g = graphOfQuestion(question, gold);
  const right = breadthFirstLines(g, reasoning, headed);
  const lines = written
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '');
  const children = new Map<string, string[]>();
  for (const [u, v] of parseSymbolicQuestion(question).edges) children.set(u, [...(children.get(u) ?? []), v]);
  const withDone = reasoning === 'expansion-queue-done' || reasoning === 'expansion-queue-done-cut';
  const parsed = lines.map((l) => queueLineNames(l, headed, withDone));
  const groupCopies = parsed.filter((p) => {
    if (!p || !g.symbols.includes(p.names[0])) return false;
    const [u, ...vs] = p.names;
    return (children.get(u) ?? []).join(' ') === vs.join(' ');
  }).length;
  const k = right.findIndex((line, i) => lines[i] !== line);
  const firstDifference = k >= 0 ? k + 1 : lines.length > right.length ? right.length + 1 : null;
  const followsQueue: [number, number] = [0, 0];
  const updatesQueue: [number, number] = [0, 0];
  const updatesDone: [number, number] = [0, 0];
  const expanded: string[] = [];
  const discovered = new Set([g.symbols[g.root]]);
  let queue: string[] = [g.symbols[g.root]];
  for (const [i, p] of parsed.entries()) {
    if (!p) break;
    const [u, ...vs] = p.names;
    if (i > 0 && parsed[i - 1]?.queue) {
      followsQueue[1]++;
      if (u === parsed[i - 1]!.queue![0]) followsQueue[0]++;
    }
    const fresh = vs.filter((v, j) => !discovered.has(v) && vs.indexOf(v) === j);
    for (const v of fresh) discovered.add(v);
    discovered.add(u);
    const made = [...queue.filter((v) => v !== u), ...fresh];
    if (p.queue) {
      updatesQueue[1]++;
      if (p.queue.join(' ') === made.join(' ')) updatesQueue[0]++;
    }
    queue = p.queue ?? made;
    expanded.push(u);
    if (p.done) {
      updatesDone[1]++;
      if (p.done.join(' ') === expanded.join(' ')) updatesDone[0]++;
    }
  }
  return {
    lines: lines.length,
    groupCopies,
    firstDifference,
    wentOn: k < 0 && lines.length > right.length,
    followsQueue,
    updatesQueue,
    updatesDone,
    firstProblem:
      reasoning === 'expansion'
        ? null
        : firstQueueProblem(g, parsed, withDone, reasoning === 'expansion-queue-done-cut'),
  };
}

/** The diagnoses of a run's traces, pooled. */
export interface TraceDiagnosisSummary {
  traces: number;
  lines: number;
  groupCopies: number;
  /** Traces by the first line that differs from the right trace: "1" … "5", "6-10", "11+", "none" (the right trace). */
  firstDifference: Record<string, number>;
  wentOn: number;
  followsQueue: [number, number];
  updatesQueue: [number, number];
  updatesDone: [number, number];
  /** Queue traces by the kind of their first problem ("none": a sound trace). */
  firstProblems: Record<string, number>;
}

const DIFFERENCE_BINS = ['1', '2', '3', '4', '5', '6-10', '11+', 'none'] as const;
const differenceBin = (k: number | null) => (k === null ? 'none' : k <= 5 ? String(k) : k <= 10 ? '6-10' : '11+');

export function summarizeDiagnoses(ds: readonly TraceDiagnosis[]): TraceDiagnosisSummary {
  const firstDifference = Object.fromEntries(DIFFERENCE_BINS.map((b) => [b, 0]));
  const add = (a: [number, number], b: [number, number]): [number, number] => [a[0] + b[0], a[1] + b[1]];
  let followsQueue: [number, number] = [0, 0];
  let updatesQueue: [number, number] = [0, 0];
  let updatesDone: [number, number] = [0, 0];
  const firstProblems: Record<string, number> = {};
  for (const d of ds) {
    if (d.updatesQueue[1] > 0 || d.firstProblem !== null) {
      const kind = d.firstProblem ?? 'none';
      firstProblems[kind] = (firstProblems[kind] ?? 0) + 1;
    }
    firstDifference[differenceBin(d.firstDifference)]++;
    followsQueue = add(followsQueue, d.followsQueue);
    updatesQueue = add(updatesQueue, d.updatesQueue);
    updatesDone = add(updatesDone, d.updatesDone);
  }
  const sum = (f: (d: TraceDiagnosis) => number) => ds.reduce((s, d) => s + f(d), 0);
  return {
    traces: ds.length,
    lines: sum((d) => d.lines),
    groupCopies: sum((d) => d.groupCopies),
    firstDifference,
    wentOn: sum((d) => (d.wentOn ? 1 : 0)),
    followsQueue,
    updatesQueue,
    updatesDone,
    firstProblems,
  };
}

export function formatDiagnosisSummary(title: string, s: TraceDiagnosisSummary): string {
  const of = ([a, b]: [number, number]) => `${a} of ${b}`;
  return [
    title,
    `  traces ${s.traces}, lines ${s.lines} (${(s.lines / Math.max(1, s.traces)).toFixed(1)} per trace)`,
    `  lines naming a node and exactly its children: ${s.groupCopies} of ${s.lines}`,
    `  first line off the right trace: ${DIFFERENCE_BINS.map((b) => `${b}: ${s.firstDifference[b]}`).join(', ')}`,
    `  the right trace written whole, then more lines: ${s.wentOn}`,
    ...(s.updatesQueue[1] > 0
      ? [
          `  lines expanding the first node of the queue above: ${of(s.followsQueue)}`,
          `  queues stated as the line's own children make them from the queue above: ${of(s.updatesQueue)}`,
        ]
      : []),
    ...(Object.keys(s.firstProblems).length > 0
      ? [
          `  first problem per trace: ${Object.entries(s.firstProblems)
            .sort((a, b) => b[1] - a[1])
            .map(([k, n]) => `${k} ${n}`)
            .join(', ')}`,
        ]
      : []),
    ...(s.updatesDone[1] > 0
      ? [`  done lists naming the nodes the trace's lines expanded so far: ${of(s.updatesDone)}`]
      : []),
  ].join('\n');
}
