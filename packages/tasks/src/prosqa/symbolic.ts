/**
 * The symbolic rendering of ProsQA (issue 21): one token per person and concept, an edge as a
 * pair, the question as the asked person and its two options. The names are ProsQA's own (a
 * person is capitalised), and every name is written after exactly one space, so core's
 * tokenizer (words with their leading space) gives each name one token id wherever it stands —
 * in the English rendering "Every" and a name at a sentence start are tokens of their own, and
 * an edge is six tokens. Layout:
 *   question  " u v." per edge, in the English question's sentence order, then " ? root A B"
 *             (A, B in the English question's order)
 *   path      one step per edge of ProsQA's path: "> u v"
 *   frontier  one step per breadth-first step: ": n1 n2 …" (every node reached so far, traces.ts)
 *   expansion one step per expanded node: "+ u c1 c2 …" (u and all its children, in the order the
 *             question states u's edges; traces.ts)
 *   expansion-queue  the expansion trace with the queue it leaves written after each line,
 *             "+ u c1 c2: q1 q2 …" (queue-trace.ts): the next line expands q1; the line that reaches
 *             an option states no queue and is the last
 *   expansion-queue-done  the same with the nodes expanded so far after the queue, "+ u c1 c2: q1
 *             q2> root n1 u" (queue-trace.ts): whether a child is new is read from the line above
 *   expansion-queue-done-cut  the same, but the last line lists the children only up to the first
 *             option, so the line ends at the option's own token: whether to stop is read where
 *             the option is written (is this token one of the two at the question's end?) instead
 *             of after the whole list (is any of these one of them?)
 *   lookup    the expansion trace's first step alone, "+ root c1 c2 …": a probe of the one read
 *             every breadth-first step makes (the answer after it is not implied by it)
 *   lookup-span  the same step written as the grouped question writes the root's edges,
 *             "+ root: c1 c2 ….", so each next token is fixed by the two or three before it as
 *             they stand in the question (an n-gram copy), where "+ root c1" matches nothing there
 *   echo      every node's edges, one line per node as lookup-span writes the root's, "+ u: v1 v2.",
 *             in the grouped question's order: the question copied line by line, so every token
 *             of the trace is a copy target (a dense signal for the copy the lookup needs); the
 *             answer after it is not implied by it
 *   echo-line the same copy as one line, "+" and the question's groups as they stand (" u: v1 v2."
 *             or headed " U v1 v2" each): no mark between groups, the form `npm run bench:copy --
 *             --format heads` copies where its per-line marks (`--format heads-echo`) slow it
 *   answer    " target" (core writes it after ###)
 * The 'grouped' rendering is the same but for the question: each node's edges together, " u: v1 v2.",
 * the nodes in the order the English question first states one of their edges and each node's
 * children in sentence order, then " ? root A B". Reading a node's children is then copying one
 * contiguous span, the lookup a step of the expansion trace makes. It keeps the graph and each
 * node's child order but not the order of the sentences, so it does not round-trip to the English.
 * The 'headed' rendering groups the edges the same way without punctuation, each group opened by
 * its node capitalised, " Sally boompus gerpus Boompus terpus": a node as a parent is a token of
 * its own (" Boompus") and as a child another (" boompus"), so every group's start is one token
 * that occurs once (`npm run bench:copy -- --format heads` copies such prompts where it does not
 * copy " u: v1 v2." groups). A person is always a parent and already capitalised. Its 'lookup' line
 * "+ Sally c1 c2 …" is then a token-for-token copy of the root's group, its 'echo' lines are
 * "+ U v1 v2" (U capitalised as in the question), and so is each 'expansion' line ("+ Boompus c3";
 * a node without children, "+ Terpus", opens no group of the question).
 * Steps start with a mark (">", ":" or "+") because a line break followed by a space is one
 * whitespace piece, which would glue to the first name; each mark is a punctuation piece of its
 * own after the line break. `englishFromSymbolic` reads the text alone (not `meta.graph`) back
 * into the English example; `symbolic.test.ts` checks the round trip on every real file.
 */
import type { Example } from '../example.js';
import type { ProsqaGraph } from './graph.js';
import { questionSentences } from './invariants.js';
import { prosqaGraph } from './load.js';
import { isPersonName, PROSQA_PERSON_NAMES } from './names.js';
import { queueTrace } from './queue-trace.js';
import { expansionTrace, frontierTrace, pathFromSteps } from './traces.js';

export type ProsqaRendering = 'english' | 'symbolic' | 'grouped' | 'headed';
export type ProsqaReasoning =
  | 'path'
  | 'frontier'
  | 'expansion'
  | 'expansion-queue'
  | 'expansion-queue-done'
  | 'expansion-queue-done-cut'
  | 'lookup'
  | 'lookup-span'
  | 'echo'
  | 'echo-line';
export const PROSQA_RENDERINGS: readonly ProsqaRendering[] = ['english', 'symbolic', 'grouped', 'headed'];
/** How a symbolic question lists the edges: one pair per sentence, or each node's edges together (with or without punctuation). */
export type SymbolicLayout = 'pairs' | 'grouped' | 'headed';
export const PROSQA_REASONING: readonly ProsqaReasoning[] = [
  'path',
  'frontier',
  'expansion',
  'expansion-queue',
  'expansion-queue-done',
  'expansion-queue-done-cut',
  'lookup',
  'lookup-span',
  'echo',
  'echo-line',
];

/** Marks that start a symbolic step line. */
export const PATH_MARK = '>';
export const FRONTIER_MARK = ':';
export const EXPANSION_MARK = '+';
/** Between an expansion-queue line's children and the queue it states. */
export const QUEUE_MARK = ':';
/** Between an expansion-queue-done line's queue and the nodes expanded so far. */
export const DONE_MARK = '>';

const EDGE = /^(?:Every ([a-z]+)|([A-Z][a-z]+)) is a ([a-z]+)\.$/;
const ASK = /^Is ([A-Z][a-z]+) a ([a-z]+) or ([a-z]+)\?$/;

interface Parsed {
  edges: [string, string][];
  root: string;
  options: [string, string];
}

/** The edges (as name pairs, in sentence order), the asked person and the options of an English question. */
function parseEnglishQuestion(question: string, id: string): Parsed {
  const sentences = questionSentences(question);
  const ask = ASK.exec(sentences.pop() ?? '');
  if (!ask) throw new Error(`${id}: the question does not end "Is Name a A or B?"`);
  const edges = sentences.map((s, i): [string, string] => {
    const m = EDGE.exec(s);
    if (!m) throw new Error(`${id}: sentence ${i + 1} ${JSON.stringify(s)} is not "Every X is a Y." or "Name is a Y."`);
    return [m[1] ?? m[2], m[3]];
  });
  return { edges, root: ask[1], options: [ask[2], ask[3]] };
}

const names = (ids: readonly number[], g: ProsqaGraph) => ids.map((v) => ` ${g.symbols[v]}`).join('');

/** The graph with its edges in the question's sentence order (the files' `edges` list is in another order). */
export function inQuestionOrder(g: ProsqaGraph, q: Parsed, id: string): ProsqaGraph {
  const index = new Map(g.symbols.map((s, i) => [s, i]));
  const node = (s: string) => {
    const i = index.get(s);
    if (i === undefined) throw new Error(`${id}: the question names ${s}, which is not in the graph`);
    return i;
  };
  return { ...g, edges: q.edges.map(([u, v]): [number, number] => [node(u), node(v)]) };
}

/** The written steps of one form: lines of names after the form's mark. */
function reasoningSteps(
  g: ProsqaGraph,
  q: Parsed,
  ex: Example,
  reasoning: ProsqaReasoning,
  layout: SymbolicLayout,
): string[] {
  const path = pathFromSteps(g, ex.steps); // read in every form: it checks the example's steps
  if (reasoning === 'frontier') return frontierTrace(g).map((step) => `${FRONTIER_MARK}${names(step, g)}`);
  if (reasoning === 'path') return path.slice(1).map((v, i) => `${PATH_MARK}${names([path[i], v], g)}`);
  if (reasoning === 'echo') return echoLines(q.edges, layout === 'headed' ? 'headed' : 'grouped');
  if (reasoning === 'echo-line') return [echoLine(q.edges, layout === 'headed' ? 'headed' : 'grouped')];
  const ordered = inQuestionOrder(g, q, ex.id);
  if (
    reasoning === 'expansion-queue' ||
    reasoning === 'expansion-queue-done' ||
    reasoning === 'expansion-queue-done-cut'
  )
    return breadthFirstLines(ordered, reasoning, layout === 'headed');
  const expansion = expansionTrace(ordered);
  if (reasoning === 'lookup-span') {
    const [root, ...children] = expansion[0];
    return [`${EXPANSION_MARK}${names([root], g)}:${names(children, g)}.`];
  }
  const lines = breadthFirstLines(ordered, 'expansion', layout === 'headed');
  return reasoning === 'lookup' ? lines.slice(0, 1) : lines;
}

/**
 * The written lines of a breadth-first trace of a graph (edges in the question's order): expansion
 * "+ u c1 c2", expansion-queue "+ u c1 c2: q1 q2" (no queue on the last line), or
 * expansion-queue-done "+ u c1 c2: q1 q2> root n1 u" (neither list on the last line), or
 * expansion-queue-done-cut (the same, the last line's children up to the first option). Headed: the
 * expanded node as the question opens its group, so a line with children copies it.
 */
export function breadthFirstLines(
  g: ProsqaGraph,
  reasoning: 'expansion' | 'expansion-queue' | 'expansion-queue-done' | 'expansion-queue-done-cut',
  headed: boolean,
): string[] {
  const head = (u: number) => (headed ? ` ${headForm(g.symbols[u])}` : names([u], g));
  if (reasoning === 'expansion')
    return expansionTrace(g).map(([u, ...children]) => `${EXPANSION_MARK}${head(u)}${names(children, g)}`);
  const withDone = reasoning !== 'expansion-queue';
  return queueTrace(g, reasoning === 'expansion-queue-done-cut').map(
    ({ node, children, queue, done }) =>
      `${EXPANSION_MARK}${head(node)}${names(children, g)}${queue ? `${QUEUE_MARK}${names(queue, g)}` : ''}` +
      (withDone && done ? `${DONE_MARK}${names(done, g)}` : ''),
  );
}

/** Each node with its children in sentence order, the nodes in the order of their first sentence. */
function groupedEdges(edges: readonly [string, string][]): [string, string[]][] {
  const children = new Map<string, string[]>(); // insertion order: each node's first sentence
  for (const [u, v] of edges) children.set(u, [...(children.get(u) ?? []), v]);
  return [...children];
}

const PERSONS: ReadonlySet<string> = new Set(PROSQA_PERSON_NAMES);

/** A node as the headed rendering writes a parent: capitalised (a person already is; one outside ProsQA's pool would be ambiguous). */
export function headForm(name: string): string {
  if (isPersonName(name) && !PERSONS.has(name))
    throw new Error(`headed rendering: the person ${name} is not one of ProsQA's ${PERSONS.size} person names`);
  return name[0].toUpperCase() + name.slice(1);
}
/** The node a headed parent names: one of ProsQA's persons as it is, a concept in lower case. */
export const nodeOfHead = (head: string) => (PERSONS.has(head) ? head : head[0].toLowerCase() + head.slice(1));

/** A node's edges as the grouped question writes them, " u: v1 v2.", or the headed one, " U v1 v2". */
function groupText([u, vs]: [string, string[]], layout: 'grouped' | 'headed'): string {
  const children = vs.map((v) => ` ${v}`).join('');
  return layout === 'headed' ? ` ${headForm(u)}${children}` : ` ${u}:${children}.`;
}

/** The echo trace: one line per node, "+ u: v1 v2." (grouped) or "+ U v1 v2" (headed), in the question's order. */
export function echoLines(edges: readonly [string, string][], layout: 'grouped' | 'headed' = 'grouped'): string[] {
  return groupedEdges(edges).map((group) => `${EXPANSION_MARK}${groupText(group, layout)}`);
}

/** The echo as one line: "+" and the question's groups as they stand (headed: "+ Sally c1 c2 Boompus c3"). */
export function echoLine(edges: readonly [string, string][], layout: 'grouped' | 'headed' = 'grouped'): string {
  return `${EXPANSION_MARK}${edgeText(edges, layout)}`;
}

/** The edges as " u v." per sentence, or (grouped, headed) per node in order of its first sentence. */
function edgeText(edges: readonly [string, string][], layout: SymbolicLayout): string {
  if (layout === 'pairs') return edges.map(([u, v]) => ` ${u} ${v}.`).join('');
  return groupedEdges(edges)
    .map((group) => groupText(group, layout))
    .join('');
}

/** The symbolic example (same id and meta.graph) with the chosen written reasoning and question layout. */
export function toSymbolicProsqa(
  ex: Example,
  reasoning: ProsqaReasoning = 'path',
  layout: SymbolicLayout = 'pairs',
): Example {
  const g = prosqaGraph(ex);
  const q = parseEnglishQuestion(ex.question, ex.id);
  const question = `${edgeText(q.edges, layout)} ? ${q.root} ${q.options[0]} ${q.options[1]}`;
  return {
    ...ex,
    question,
    steps: reasoningSteps(g, q, ex, reasoning, layout),
    answer: g.symbols[g.target],
    meta: { ...ex.meta, rendering: layout === 'pairs' ? 'symbolic' : layout, reasoning },
  };
}

/** The example in a rendering: the English as it is, or symbolic (pairs, grouped or headed) with the written reasoning. */
export function renderProsqa(ex: Example, rendering: ProsqaRendering, reasoning: ProsqaReasoning): Example {
  if (rendering === 'english') return ex;
  return toSymbolicProsqa(ex, reasoning, rendering === 'symbolic' ? 'pairs' : rendering);
}

/** Names of a lookup-span line ("+ root: c1 c2 …."), root first, or null when it is not one. */
export function spanNames(line: string): string[] | null {
  const m = /^\+ ([A-Za-z]+):((?: [A-Za-z]+)*)\.$/.exec(line);
  return m ? [m[1], ...m[2].split(' ').slice(1)] : null;
}

/** Names of a symbolic step line after its mark, or null when the line does not start with it. */
export function stepNames(line: string, mark: string): string[] | null {
  if (!line.startsWith(mark)) return null;
  const rest = line.slice(mark.length);
  if (!/^( [A-Za-z]+)*$/.test(rest)) return null;
  return rest.split(' ').slice(1);
}

/**
 * Parses a symbolic question text, any layout: edges as name pairs (a grouped or headed question's
 * grouped by node, each node's children in order), the asked person and the options.
 */
export function parseSymbolicQuestion(question: string, id = 'question'): Parsed {
  const ask = / \? ([A-Z][a-z]+) ([a-z]+) ([a-z]+)$/;
  const layouts: [RegExp, RegExp, (head: string) => string][] = [
    [/(?: [A-Za-z]+ [a-z]+\.)*/, / ([A-Za-z]+)((?: [a-z]+))\./g, (u) => u],
    [/(?: [A-Za-z]+:(?: [a-z]+)+\.)*/, / ([A-Za-z]+):((?: [a-z]+)+)\./g, (u) => u],
    [/(?: [A-Z][a-z]+(?: [a-z]+)+)*/, / ([A-Z][a-z]+)((?: [a-z]+)+)/g, nodeOfHead],
  ];
  for (const [whole, group, node] of layouts) {
    const m = new RegExp(`^(${whole.source})${ask.source}`).exec(question);
    if (!m) continue;
    const edges = [...m[1].matchAll(group)].flatMap((g) =>
      g[2]
        .split(' ')
        .slice(1)
        .map((v): [string, string] => [node(g[1]), v]),
    );
    return { edges, root: m[2], options: [m[3], m[4]] };
  }
  throw new Error(
    `${id}: not a symbolic ProsQA question (" u v." per edge, " u: v1 v2." or " U v1 v2" per node, then " ? Name A B")`,
  );
}

/**
 * The English example a symbolic one renders, read from its text alone: question sentences,
 * ProsQA's path steps ("> u v" lines; frontier and expansion traces are rebuilt from the graph the
 * question states, whose path is the original's only when it was a path rendering) and the answer.
 */
export function englishFromSymbolic(sym: Example, englishSteps?: readonly string[]): Example {
  const q = parseSymbolicQuestion(sym.question, sym.id);
  const sentence = ([u, v]: [string, string]) => (isPersonName(u) ? `${u} is a ${v}.` : `Every ${u} is a ${v}.`);
  const question = [...q.edges.map(sentence), `Is ${q.root} a ${q.options[0]} or ${q.options[1]}?`].join(' ');
  let steps: string[];
  if (englishSteps) steps = [...englishSteps];
  else {
    steps = sym.steps.map((line, i) => {
      const pair = stepNames(line, PATH_MARK);
      if (!pair || pair.length !== 2)
        throw new Error(`${sym.id}: step ${i + 1} ${JSON.stringify(line)} is not "${PATH_MARK} u v"`);
      return sentence(pair as [string, string]);
    });
  }
  const { rendering: _r, reasoning: _s, ...meta } = (sym.meta ?? {}) as Record<string, unknown>;
  return { ...sym, question, steps, answer: `${q.root} is a ${sym.answer}.`, meta };
}
