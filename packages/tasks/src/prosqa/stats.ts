/**
 * ProsQA statistics (docs/datasets.md §5.2): graph size, answer-path depth, shortest-path
 * multiplicity, persons, parents, distractor properties, vocabulary, question template, node-id
 * layout and sequence lengths, computed the same way for real and generated sets.
 */
import { Tokenizer } from '@telepath/core';
import type { Example } from '../example.js';
import { childLists, longestPathFrom, parentCounts, reachable, shortestPathCounts } from './graph.js';
import { prosqaViolations, questionSentences } from './invariants.js';
import { prosqaGraph } from './load.js';

export interface Summary {
  mean: number;
  sd: number;
  min: number;
  max: number;
}
/** Percent of examples (or nodes) per bucket; the last bucket is "≥ key". */
export type Histogram = Record<string, number>;

export interface ProsqaStats {
  count: number;
  nodes: Summary;
  nodesHist: Record<string, number>;
  edges: Summary;
  edgesPerNode: number;
  steps: Summary;
  stepsPct: Histogram;
  shortestPaths: Summary;
  shortestPathsPct: Histogram;
  persons: Summary;
  personsPct: Histogram;
  concepts: Summary;
  /** Parents of non-person nodes, percent of those nodes. */
  parentsPct: Histogram;
  parentsMean: number;
  rootOutDegree: Summary;
  reachableFromRoot: Summary;
  leaves: Summary;
  longestPath: Summary & { mode: number };
  /** Percent of examples whose target another person also reaches. */
  targetFromOtherPersonPct: number;
  /** Number of persons reaching neg_target, percent of examples. */
  personsReachingNegPct: Histogram;
  /** Examples whose target is reached by a person that also reaches neg_target. */
  targetFromNegPersonCount: number;
  questionChars: Summary;
  questionTokens: Summary;
  /** Tokens of the CoT completion (steps, separator and answer). */
  cotTokens: Summary;
  /** Percent of questions naming the target first in "Is Name a A or B?". */
  targetFirstPct: number;
  /** Percent of examples whose root is node 1 (the real files use ids 0/1 for the two initial persons). */
  rootIsNode1Pct: number;
  /** Percent of examples whose ids are a topological order with edges listed by child. */
  creationOrderPct: number;
  personNames: string[];
  conceptNames: string[];
  /** Examples violating any invariant of docs/datasets.md §4. */
  invariantViolations: number;
}

function summary(xs: number[]): Summary {
  if (xs.length === 0) return { mean: NaN, sd: NaN, min: NaN, max: NaN };
  const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
  const sd = Math.sqrt(xs.reduce((a, b) => a + (b - mean) ** 2, 0) / xs.length);
  return { mean, sd, min: xs.reduce((a, b) => Math.min(a, b)), max: xs.reduce((a, b) => Math.max(a, b)) };
}

/** Percent per bucket for keys lo..hi, the last bucket holding everything ≥ hi. */
function pct(xs: number[], lo: number, hi: number): Histogram {
  const h: Histogram = {};
  for (let k = lo; k <= hi; k++) h[k === hi ? `${k}+` : String(k)] = 0;
  for (const x of xs) {
    const k = x >= hi ? `${hi}+` : String(Math.max(x, lo));
    h[k] += 100 / xs.length;
  }
  return h;
}

function counts(xs: number[]): Record<string, number> {
  const h: Record<string, number> = {};
  for (const x of [...xs].sort((a, b) => a - b)) h[x] = (h[x] ?? 0) + 1;
  return h;
}

let pieceCounter: Tokenizer | undefined;
/** Token count under a vocabulary that covers every piece (core tokenizer's pre-tokenisation). */
function tokenCount(text: string): number {
  pieceCounter ??= Tokenizer.build([]);
  return pieceCounter.pieces(text).length;
}

export function prosqaStats(examples: Example[]): ProsqaStats {
  const per = examples.map((ex) => {
    const g = prosqaGraph(ex);
    const n = g.symbols.length;
    const ch = childLists(n, g.edges);
    const parents = parentCounts(n, g.edges);
    const persons = [...Array(n).keys()].filter((i) => parents[i] === 0);
    const reach = new Map(persons.map((p) => [p, reachable(ch, p)]));
    const negPersons = persons.filter((p) => reach.get(p)!.has(g.negTarget));
    const memo = new Map<number, number>();
    const { count } = shortestPathCounts(ch, g.root);
    const last = questionSentences(ex.question).at(-1) ?? '';
    const creationOrder = g.edges.every(([u, v], i) => u < v && (i === 0 || g.edges[i - 1][1] <= v));
    return {
      n,
      e: g.edges.length,
      steps: ex.steps.length,
      paths: count[g.target],
      persons: persons.length,
      nonPersonParents: parents.filter((p) => p > 0),
      rootOut: ch[g.root].length,
      reach: reach.get(g.root)!.size - 1,
      leaves: ch.filter((c, i) => c.length === 0 && parents[i] > 0).length,
      longest: Math.max(...persons.map((p) => longestPathFrom(ch, p, memo))),
      targetOther: persons.some((p) => p !== g.root && reach.get(p)!.has(g.target)),
      negPersons: negPersons.length,
      targetFromNeg: negPersons.some((p) => reach.get(p)!.has(g.target)),
      chars: ex.question.length,
      qTokens: tokenCount(ex.question),
      cotTokens: tokenCount(`${ex.steps.join('\n')}\n### ${ex.answer}`),
      targetFirst: last.includes(` a ${g.symbols[g.target]} or `),
      rootIs1: g.root === 1,
      creationOrder,
      names: g.symbols,
      violations: prosqaViolations(ex).length,
    };
  });
  const allParents = per.flatMap((p) => p.nonPersonParents);
  const longest = per.map((p) => p.longest);
  const longestCounts = counts(longest);
  const mode = Number(Object.entries(longestCounts).sort((a, b) => b[1] - a[1])[0]?.[0] ?? NaN);
  const share = (f: (p: (typeof per)[number]) => boolean) => (100 * per.filter(f).length) / per.length;
  const names = new Set(per.flatMap((p) => p.names));
  return {
    count: examples.length,
    nodes: summary(per.map((p) => p.n)),
    nodesHist: counts(per.map((p) => p.n)),
    edges: summary(per.map((p) => p.e)),
    edgesPerNode: per.reduce((a, p) => a + p.e, 0) / per.reduce((a, p) => a + p.n, 0),
    steps: summary(per.map((p) => p.steps)),
    stepsPct: pct(
      per.map((p) => p.steps),
      3,
      6,
    ),
    shortestPaths: summary(per.map((p) => p.paths)),
    shortestPathsPct: pct(
      per.map((p) => p.paths),
      1,
      4,
    ),
    persons: summary(per.map((p) => p.persons)),
    personsPct: pct(
      per.map((p) => p.persons),
      2,
      5,
    ),
    concepts: summary(per.map((p) => p.n - p.persons)),
    parentsPct: pct(allParents, 1, 6),
    parentsMean: summary(allParents).mean,
    rootOutDegree: summary(per.map((p) => p.rootOut)),
    reachableFromRoot: summary(per.map((p) => p.reach)),
    leaves: summary(per.map((p) => p.leaves)),
    longestPath: { ...summary(longest), mode },
    targetFromOtherPersonPct: share((p) => p.targetOther),
    personsReachingNegPct: pct(
      per.map((p) => p.negPersons),
      1,
      3,
    ),
    targetFromNegPersonCount: per.filter((p) => p.targetFromNeg).length,
    questionChars: summary(per.map((p) => p.chars)),
    questionTokens: summary(per.map((p) => p.qTokens)),
    cotTokens: summary(per.map((p) => p.cotTokens)),
    targetFirstPct: share((p) => p.targetFirst),
    rootIsNode1Pct: share((p) => p.rootIs1),
    creationOrderPct: share((p) => p.creationOrder),
    personNames: [...names].filter((s) => /^[A-Z]/.test(s)).sort(),
    conceptNames: [...names].filter((s) => !/^[A-Z]/.test(s)).sort(),
    invariantViolations: per.filter((p) => p.violations > 0).length,
  };
}
