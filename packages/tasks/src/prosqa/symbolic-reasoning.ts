/**
 * Whether written reasoning in the symbolic rendering (symbolic.ts) is sound against the
 * question's graph; the first line's mark chooses the form. "> u v" lines are ProsQA's path and get
 * the English checker's verdicts (reasoning.ts: 'shortest-path', 'longer-path', 'hallucinated-edge',
 * 'broken-chain', 'wrong-target'); ": …" lines are a frontier trace: 'frontier' when traces.ts'
 * verifier finds nothing wrong, else 'wrong-frontier' with the first problem; "+ u c1 c2 …" lines
 * are an expansion trace: 'expansion', else 'wrong-expansion' with the first problem; an example
 * rendered as the lookup probe (meta.reasoning 'lookup', or 'lookup-span': "+ root: c1 c2 ….") is
 * checked as that one line: 'lookup' or 'wrong-lookup'; one rendered as the echo probe
 * (meta.reasoning 'echo') is checked against the question's text: 'echo' when its lines are the
 * question's groups, each "+ u: v1 v2." in order ("+ U v1 v2" in the headed rendering), else
 * 'wrong-echo' at the first line that differs; 'echo-line' (the same copy as one line) gets the same
 * verdicts, 'wrong-echo' at the first word that differs. One rendered with 'expansion-queue'
 * ("+ u c1 c2: q1 q2", the last line without the queue; u capitalised in the headed rendering) is
 * 'expansion-queue' when queue-trace.ts' verifier finds nothing wrong, else 'wrong-queue';
 * 'expansion-queue-done' ("+ u c1 c2: q1 q2> root n1 u", the nodes expanded so far after the queue)
 * the same, its sound verdict 'expansion-queue-done'.
 * Unknown names are 'hallucinated-edge' / 'hallucinated-node'; other lines 'unparsed'.
 */
import type { Example, ReasoningVerdict } from '../example.js';
import type { ProsqaGraph } from './graph.js';
import { prosqaGraph } from './load.js';
import { checkPathSteps } from './path-check.js';
import {
  echoLine,
  echoLines,
  EXPANSION_MARK,
  nodeOfHead,
  FRONTIER_MARK,
  inQuestionOrder,
  PATH_MARK,
  parseSymbolicQuestion,
  QUEUE_MARK,
  DONE_MARK,
  spanNames,
  stepNames,
} from './symbolic.js';
import { queueProblems, type QueueStep } from './queue-trace.js';
import { expansionProblems, frontierProblems, lookupProblems } from './traces.js';

/** A trace form written as lines of names after one mark, and its verifier. */
interface TraceForm {
  mark: string;
  /** The line's layout, for 'unparsed'. */
  layout: string;
  /** The names of a line, or null when it is not in the layout; default: the names after the mark. */
  parse?: (line: string) => string[] | null;
  /** The fewest names a line holds. */
  minNames: number;
  problems: (g: ProsqaGraph, trace: number[][]) => string[];
  /** The verdicts (without their detail) of a trace the verifier passes and of one it does not. */
  sound: { ok: true; reason: string };
  wrong: { ok: false; reason: string };
}

const TRACE_FORMS: readonly TraceForm[] = [
  {
    mark: FRONTIER_MARK,
    layout: 'n1 n2 …',
    minNames: 0,
    problems: frontierProblems,
    sound: { ok: true, reason: 'frontier' },
    wrong: { ok: false, reason: 'wrong-frontier' },
  },
  {
    mark: EXPANSION_MARK,
    layout: 'u c1 c2 …',
    minNames: 1,
    problems: expansionProblems,
    sound: { ok: true, reason: 'expansion' },
    wrong: { ok: false, reason: 'wrong-expansion' },
  },
];

/** The lookup probe's one line (an example rendered with reasoning 'lookup'), in the expansion layout. */
const LOOKUP_FORM: TraceForm = {
  mark: EXPANSION_MARK,
  layout: 'root c1 c2 …',
  minNames: 1,
  problems: lookupProblems,
  sound: { ok: true, reason: 'lookup' },
  wrong: { ok: false, reason: 'wrong-lookup' },
};

/** The lookup probe's line written as the question's span of the root's edges. */
const LOOKUP_SPAN_FORM: TraceForm = { ...LOOKUP_FORM, layout: 'root: c1 c2 ….', parse: spanNames };

function checkTrace(g: ProsqaGraph, lines: string[], form: TraceForm): ReasoningVerdict {
  const id = new Map(g.symbols.map((s, i) => [s, i]));
  const trace: number[][] = [];
  for (const [i, line] of lines.entries()) {
    const names = form.parse ? form.parse(line) : stepNames(line, form.mark);
    if (!names || names.length < form.minNames)
      return { ok: false, reason: 'unparsed', detail: `step ${i + 1} "${line}": not "${form.mark} ${form.layout}"` };
    const unknown = names.find((s) => !id.has(s));
    if (unknown !== undefined)
      return { ok: false, reason: 'hallucinated-node', detail: `step ${i + 1}: ${unknown} is not in the question` };
    trace.push(names.map((s) => id.get(s)!));
  }
  const problems = form.problems(g, trace);
  return problems.length === 0
    ? { ...form.sound, detail: `${trace.length} steps` }
    : { ...form.wrong, detail: problems[0] };
}

/** A headed line's nodes, "+ U v1 v2" (the parent capitalised, with at least `minChildren`), or null when it is not one. */
function headedNames(line: string, minChildren = 1): string[] | null {
  const names = stepNames(line, EXPANSION_MARK);
  return names && names.length >= 1 + minChildren && /^[A-Z]/.test(names[0])
    ? [nodeOfHead(names[0]), ...names.slice(1)]
    : null;
}

/** The expansion trace in the headed rendering: each expanded node as its group's head ("+ Boompus c3"; a leaf "+ Terpus"). */
const HEADED_EXPANSION_FORM: TraceForm = {
  ...TRACE_FORMS.find((f) => f.mark === EXPANSION_MARK)!,
  layout: 'U c1 c2 …',
  parse: (line) => headedNames(line, 0),
};

/** 'wrong-echo' at the first of the written steps or words that is not the question's, or null when they start with all of it. */
function firstEchoDifference(written: string[], expected: string[], unit: 'step' | 'word'): ReasoningVerdict | null {
  const k = expected.findIndex((e, i) => written[i] !== e);
  if (k < 0) return null;
  const got = written[k] === undefined ? 'missing' : `"${written[k]}"`;
  return { ok: false, reason: 'wrong-echo', detail: `${unit} ${k + 1}: ${got}, the question has "${expected[k]}"` };
}

/** An echo trace against the question it copies: every node's line ("+ u: v1 v2." or headed "+ U v1 v2"), in the question's order. */
function checkEcho(example: Example, g: ProsqaGraph, lines: string[]): ReasoningVerdict {
  const known = new Set(g.symbols);
  const layout = example.meta?.rendering === 'headed' ? 'headed' : 'grouped';
  const [parse, form] = layout === 'headed' ? [headedNames, 'U v1 v2 …'] : [spanNames, 'u: v1 v2 ….'];
  for (const [i, line] of lines.entries()) {
    const names = parse(line);
    if (!names)
      return { ok: false, reason: 'unparsed', detail: `step ${i + 1} "${line}": not "${EXPANSION_MARK} ${form}"` };
    const unknown = names.find((s) => !known.has(s));
    if (unknown !== undefined)
      return { ok: false, reason: 'hallucinated-node', detail: `step ${i + 1}: ${unknown} is not in the question` };
  }
  const expected = echoLines(parseSymbolicQuestion(example.question, example.id).edges, layout);
  const differs = firstEchoDifference(lines, expected, 'step');
  if (differs) return differs;
  if (lines.length > expected.length)
    return {
      ok: false,
      reason: 'wrong-echo',
      detail: `${lines.length} steps, the question has ${expected.length} groups`,
    };
  return { ok: true, reason: 'echo', detail: `${lines.length} steps` };
}

/** A one-line echo against the question's groups as they stand, word by word. */
function checkEchoLine(example: Example, g: ProsqaGraph, lines: string[]): ReasoningVerdict {
  const layout = example.meta?.rendering === 'headed' ? 'headed' : 'grouped';
  const [line, ...more] = lines;
  if (!line.startsWith(`${EXPANSION_MARK} `))
    return { ok: false, reason: 'unparsed', detail: `"${line}": not "${EXPANSION_MARK}" and the question's groups` };
  const known = new Set(g.symbols);
  const words = line.slice(EXPANSION_MARK.length + 1).split(' ');
  const unknown = words
    .map((w) => w.replace(/[:.]$/, ''))
    .find((w) => !known.has(layout === 'headed' && /^[A-Z]/.test(w) ? nodeOfHead(w) : w));
  if (unknown !== undefined)
    return { ok: false, reason: 'hallucinated-node', detail: `${unknown} is not in the question` };
  const expected = echoLine(parseSymbolicQuestion(example.question, example.id).edges, layout)
    .slice(EXPANSION_MARK.length + 1)
    .split(' ');
  const differs = firstEchoDifference(words, expected, 'word');
  if (differs) return differs;
  if (words.length > expected.length || more.length > 0)
    return {
      ok: false,
      reason: 'wrong-echo',
      detail: `${words.length} words on ${lines.length} line(s), the question's groups have ${expected.length} on one`,
    };
  return { ok: true, reason: 'echo', detail: `${words.length} words` };
}

/**
 * An expansion or queue-trace line's node, children, stated queue and done list as names (null
 * where the line states none: no queue on an expansion line or a trace's last), or null when it is
 * not one (headed: the node capitalised; `withDone`: the done form, where a line states a done list
 * exactly when it states a queue, and no other form states one).
 */
export function queueLineNames(
  line: string,
  headed: boolean,
  withDone = false,
): { names: string[]; queue: string[] | null; done: string[] | null } | null {
  const [lists, doneText, ...moreDone] = line.split(DONE_MARK);
  const [expansion, queue, ...more] = lists.split(QUEUE_MARK);
  if (more.length > 0 || moreDone.length > 0 || (doneText !== undefined && queue === undefined)) return null;
  const names = headed ? headedNames(expansion, 0) : stepNames(expansion, EXPANSION_MARK);
  const queued = queue === undefined ? null : stepNames(queue, '');
  const done = doneText === undefined ? null : stepNames(doneText, '');
  if (!names || names.length < 1 || (queue !== undefined && !queued) || (doneText !== undefined && !done)) return null;
  if ((done !== null) !== (withDone && queued !== null)) return null;
  return { names, queue: queued, done };
}

/** A queue trace: each line parsed, its names known, then queue-trace.ts' verifier. */
function checkQueueTrace(
  example: Example,
  g: ProsqaGraph,
  lines: string[],
  withDone: boolean,
  cut = false,
): ReasoningVerdict {
  const headed = example.meta?.rendering === 'headed';
  const form = `"${EXPANSION_MARK} ${headed ? 'U' : 'u'} c1 c2 …${QUEUE_MARK} q1 q2 …${withDone ? `${DONE_MARK} n1 n2 …` : ''}"`;
  const id = new Map(g.symbols.map((s, i) => [s, i]));
  const trace: QueueStep[] = [];
  for (const [i, line] of lines.entries()) {
    const parsed = queueLineNames(line, headed, withDone);
    if (!parsed)
      return {
        ok: false,
        reason: 'unparsed',
        detail: `step ${i + 1} "${line}": not ${form}`,
      };
    const unknown = [...parsed.names, ...(parsed.queue ?? []), ...(parsed.done ?? [])].find((s) => !id.has(s));
    if (unknown !== undefined)
      return { ok: false, reason: 'hallucinated-node', detail: `step ${i + 1}: ${unknown} is not in the question` };
    const [node, ...children] = parsed.names.map((s) => id.get(s)!);
    const ids = (names: string[] | null) => names && names.map((s) => id.get(s)!);
    trace.push({ node, children, queue: ids(parsed.queue), done: ids(parsed.done) });
  }
  // The cut form's "up to the first option" follows the order the question writes the edges in (as
  // the trace does); the dataset's own edge list has another.
  const checked = cut ? inQuestionOrder(g, parseSymbolicQuestion(example.question, example.id), example.id) : g;
  const problems = queueProblems(checked, trace, withDone, cut);
  const sound = cut ? 'expansion-queue-done-cut' : withDone ? 'expansion-queue-done' : 'expansion-queue';
  return problems.length === 0
    ? { ok: true, reason: sound, detail: `${trace.length} steps` }
    : { ok: false, reason: 'wrong-queue', detail: problems[0] };
}

export function checkSymbolicReasoning(example: Example, reasoning: string): ReasoningVerdict {
  const g = prosqaGraph(example);
  const lines = reasoning
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '');
  if (lines.length === 0) return { ok: false, reason: 'empty', detail: 'no steps' };
  if (example.meta?.reasoning === 'lookup') return checkTrace(g, lines, LOOKUP_FORM);
  if (example.meta?.reasoning === 'lookup-span') return checkTrace(g, lines, LOOKUP_SPAN_FORM);
  if (example.meta?.reasoning === 'echo') return checkEcho(example, g, lines);
  if (example.meta?.reasoning === 'echo-line') return checkEchoLine(example, g, lines);
  if (example.meta?.reasoning === 'expansion-queue') return checkQueueTrace(example, g, lines, false);
  if (example.meta?.reasoning === 'expansion-queue-done') return checkQueueTrace(example, g, lines, true);
  if (example.meta?.reasoning === 'expansion-queue-done-cut') return checkQueueTrace(example, g, lines, true, true);
  const form = TRACE_FORMS.find((f) => lines[0].startsWith(f.mark));
  if (form?.mark === EXPANSION_MARK && example.meta?.rendering === 'headed')
    return checkTrace(g, lines, HEADED_EXPANSION_FORM);
  if (form) return checkTrace(g, lines, form);
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
