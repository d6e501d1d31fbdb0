/**
 * ProsQA-like generator (docs/datasets.md §5.1, which follows Coconut App. A.2 / Alg. 1 as transcribed
 * [third-party]). Where the transcription is silent or its literal reading does not reproduce the
 * real files, the choice is marked "inferred" with the measurement behind it (prosqa/compare.ts
 * puts every statistic side by side; generate.test.ts asserts the tolerances).
 *
 * One graph: nodes are created in order; node 0 and node 1 are persons. Every node carries a
 * label bitmask (bit 1 = descends from node 0, bit 2 = descends from node 1). A new node either
 * may not descend from node 1, may not descend from node 0, or is unconstrained; it takes k
 * parents among the admissible existing nodes, drawn without replacement with weight
 * 1.5·depth + 1, and its label is the OR of its parents' labels. Parentless nodes are persons,
 * the rest concepts. The answer is a leaf descending from the queried person only, the
 * distractor a leaf descending from the other initial person only. Every edge becomes one
 * sentence, in random order, followed by "Is Name a A or B?"; steps = one shortest path chosen
 * uniformly; answer = "Name is a A.". Node ids stay in creation order with edges listed by child,
 * as in the real files (measured: 800/800 examples; the queried person is node 0 or 1).
 */
import { Rng } from '@telepath/core';
import type { Example } from '../example.js';
import { bfsDistances, childLists, edgeSentence, sampleShortestPath, type ProsqaGraph } from './graph.js';
import { PROSQA_CONCEPT_NAMES, PROSQA_PERSON_NAMES } from './names.js';

export interface ProsqaGenConfig {
  /** Histogram of the node count N. */
  nodeCounts: Record<number, number>;
  /** P(the new node may not descend from node 1). */
  pNotFromNode1: number;
  /** P(the new node may not descend from node 0). */
  pNotFromNode0: number;
  /**
   * How a constraint restricts parents: 'exclude' — "may not descend from node 1" admits every
   * node whose label lacks bit 2 (the literal reading); 'exact' — it admits only nodes whose label
   * is exactly 1 (descendants of node 0 alone). Unconstrained nodes may take any parent.
   */
  admissibility: 'exclude' | 'exact';
  /** k ~ Poisson(parentRate) given k ≥ 1. */
  parentRate: number;
  /** Probability that a new node has no parent (becomes an extra person). */
  extraPersonRate: number;
  /** Parent weight = depthWeight·depth + 1. */
  depthWeight: number;
  /** A node's depth: 1 + the 'max' or the 'min' of its parents' depths (persons 0). */
  depthRule: 'max' | 'min';
  /** Which initial person is queried: P(node 1), or 'either' = uniform over the roles giving a valid question. */
  rootChoice: number | 'either';
  /** Allowed answer depths (shortest-path lengths) and their shares. */
  stepShares: Record<number, number>;
}

export const DEFAULT_PROSQA_GEN_CONFIG: ProsqaGenConfig = {
  // docs/datasets.md §5.1 step 1 (inferred there): the pooled valid + test histogram of §5.2.
  nodeCounts: { 14: 1, 17: 6, 18: 7, 19: 31, 20: 53, 21: 97, 22: 142, 23: 155, 24: 149, 25: 98, 26: 47, 27: 12, 28: 2 },
  pNotFromNode1: 0.35, // Coconut App. A.2 [third-party]: "with p = 0.35 it may not descend from node 1"
  // inferred: App. A.2 [third-party] says 0.35, but the real graphs are asymmetric — node 1 has 10.75
  // descendants per graph, node 0 8.11, and the root is node 1 in 509/800; 0.35 gives ≈ 9 / 9 and 51%.
  pNotFromNode0: 0.47,
  // inferred: nodes descending from both initial persons (1.24 per graph) and concepts descending
  // from neither (0.15) are leaves in ≈ 90% of the real examples; 'exclude' gives 2.3 and 0.32 per graph.
  admissibility: 'exact',
  parentRate: 1.5, // Coconut App. A.2 [third-party]: "number of parents k ~ Poisson(1.5)"
  // chosen: close to Poisson(1.5)'s P(k = 0) = 0.223 and tuned to the real 2.56 persons per graph;
  // an extra person that never gets a child is dropped (the real files have no isolated node).
  extraPersonRate: 0.25,
  depthWeight: 1.5, // Coconut App. A.2 [third-party]: parent weight "depth·1.5 + 1"
  // inferred: with 'max' the longest person→leaf path has mode 7 (mean 7.2) against the real 6 (6.43).
  depthRule: 'min',
  rootChoice: 'either', // inferred: reproduces root = node 1 in ≈ 62% (real 63.6%)
  // docs/datasets.md §5.1 step 9: shortest path 3..6 only; pooled real counts 326 / 350 / 105 / 19 of 800.
  stepShares: { 3: 326, 4: 350, 5: 105, 6: 19 },
};

/** Bump when the generator's output for a given seed changes. */
export const PROSQA_GENERATOR_VERSION = 1;

export interface RawGraph {
  parents: number[][];
  labels: number[];
}

export interface Answer {
  edges: [number, number][];
  root: number;
  target: number;
  negTarget: number;
  path: number[];
}

/** Poisson(λ) conditioned on k ≥ 1, by inversion. */
function truncatedPoisson(rng: Rng, lambda: number): number {
  const p0 = Math.exp(-lambda);
  const u = p0 + rng.float() * (1 - p0);
  let k = 0;
  let p = p0;
  let cdf = p0;
  while (u > cdf && k < 50) {
    k++;
    p *= lambda / k;
    cdf += p;
  }
  return Math.max(1, k);
}

/** Up to k distinct items drawn without replacement with the given weights. */
function weightedSample(rng: Rng, items: number[], weights: number[], k: number): number[] {
  const pool = items.map((x, i) => ({ x, w: weights[i] }));
  const out: number[] = [];
  while (out.length < k && pool.length > 0) {
    let r = rng.float() * pool.reduce((a, p) => a + p.w, 0);
    let j = pool.length - 1;
    for (let i = 0; i < pool.length; i++) {
      r -= pool[i].w;
      if (r < 0) {
        j = i;
        break;
      }
    }
    out.push(pool[j].x);
    pool.splice(j, 1);
  }
  return out;
}

export function drawFromCounts(rng: Rng, counts: Record<number, number>): number {
  const entries = Object.entries(counts).map(([k, c]) => [Number(k), c] as const);
  let r = rng.float() * entries.reduce((a, [, c]) => a + c, 0);
  for (const [k, c] of entries) {
    r -= c;
    if (r < 0) return k;
  }
  return entries[entries.length - 1][0];
}

/**
 * Grows the DAG until it has `n` nodes that are not isolated persons, then drops the isolated
 * ones (ids stay in creation order). Null when the count overshoots `n`, or node 0 or 1 is isolated.
 */
export function drawRawGraph(rng: Rng, n: number, cfg: ProsqaGenConfig): RawGraph | null {
  const parents: number[][] = [[], []];
  const labels = [1, 2];
  const depth = [0, 0];
  const hasChild = [false, false];
  const live = () => parents.filter((p, i) => p.length > 0 || hasChild[i]).length;
  const pick = cfg.depthRule === 'max' ? Math.max : Math.min;
  while (live() < n) {
    const r = rng.float();
    const forbidden = r < cfg.pNotFromNode1 ? 2 : r < cfg.pNotFromNode1 + cfg.pNotFromNode0 ? 1 : 0;
    const admits = (l: number) =>
      forbidden === 0 || (cfg.admissibility === 'exclude' ? (l & forbidden) === 0 : l === 3 - forbidden);
    const k = rng.float() < cfg.extraPersonRate ? 0 : truncatedPoisson(rng, cfg.parentRate);
    const admissible = labels.map((_, i) => i).filter((i) => admits(labels[i]));
    const chosen = weightedSample(
      rng,
      admissible,
      admissible.map((i) => cfg.depthWeight * depth[i] + 1),
      k,
    );
    parents.push(chosen);
    labels.push(chosen.reduce((a, p) => a | labels[p], 0));
    depth.push(chosen.length === 0 ? 0 : 1 + pick(...chosen.map((p) => depth[p])));
    hasChild.push(false);
    for (const p of chosen) hasChild[p] = true;
  }
  if (live() !== n || !hasChild[0] || !hasChild[1]) return null;
  const keep = parents.map((p, i) => p.length > 0 || hasChild[i]);
  const newId: number[] = [];
  let next = 0;
  keep.forEach((k, i) => (newId[i] = k ? next++ : -1));
  return {
    parents: parents.filter((_, i) => keep[i]).map((ps) => ps.map((p) => newId[p])),
    labels: labels.filter((_, i) => keep[i]),
  };
}

/** Picks the queried person, the answer at depth `steps` and the distractor; null when impossible. */
function chooseAnswer(rng: Rng, raw: RawGraph, cfg: ProsqaGenConfig, steps: number): Answer | null {
  const n = raw.parents.length;
  const edges: [number, number][] = [];
  raw.parents.forEach((ps, v) => ps.forEach((u) => edges.push([u, v])));
  const ch = childLists(n, edges);
  const isLeaf = (i: number) => ch[i].length === 0 && raw.parents[i].length > 0;
  const roleOptions = (root: number) => {
    const bit = root === 0 ? 1 : 2;
    const dist = bfsDistances(ch, root);
    const targets = [...Array(n).keys()].filter((i) => isLeaf(i) && raw.labels[i] === bit && dist[i] === steps);
    const negs = [...Array(n).keys()].filter((i) => isLeaf(i) && raw.labels[i] === 3 - bit);
    return targets.length > 0 && negs.length > 0 ? { root, targets, negs } : null;
  };
  let role: ReturnType<typeof roleOptions>;
  if (cfg.rootChoice === 'either') {
    const valid = [roleOptions(0), roleOptions(1)].filter((o) => o !== null);
    role = valid.length === 0 ? null : rng.pick(valid);
  } else {
    role = roleOptions(rng.float() < cfg.rootChoice ? 1 : 0);
  }
  if (!role) return null;
  const target = rng.pick(role.targets);
  const negTarget = rng.pick(role.negs);
  return { edges, root: role.root, target, negTarget, path: sampleShortestPath(ch, role.root, target, rng) };
}

/** Names the nodes and writes question, steps and answer. */
export function toExample(rng: Rng, id: string, a: Answer, parentsOf: number[][]): Example {
  const isPerson = (i: number) => parentsOf[i].length === 0;
  const persons = rng.shuffle([...PROSQA_PERSON_NAMES]);
  const concepts = rng.shuffle([...PROSQA_CONCEPT_NAMES]);
  let pi = 0;
  let ci = 0;
  const symbols = parentsOf.map((_, i) => (isPerson(i) ? persons[pi++] : concepts[ci++]));
  const sentences = rng.shuffle(a.edges.map(([u, v]) => edgeSentence(symbols, u, v, isPerson)));
  const [first, second] = rng.float() < 0.5 ? [a.target, a.negTarget] : [a.negTarget, a.target];
  const name = symbols[a.root];
  const question = [...sentences, `Is ${name} a ${symbols[first]} or ${symbols[second]}?`].join(' ');
  const steps = a.path.slice(1).map((v, i) => edgeSentence(symbols, a.path[i], v, isPerson));
  const graph: ProsqaGraph = { symbols, edges: a.edges, root: a.root, target: a.target, negTarget: a.negTarget };
  return { id, question, steps, answer: `${name} is a ${symbols[a.target]}.`, meta: { graph } };
}

export interface GenerateProsqaOptions {
  count: number;
  seed: number;
  /** Questions to avoid (the real valid/test questions; docs/datasets.md §5.1 step 9). */
  exclude?: ReadonlySet<string>;
  config?: ProsqaGenConfig;
  /** Ids are `<idPrefix>/<index>`; default "prosqa-gen/train". */
  idPrefix?: string;
}

/**
 * `count` examples. Answer depths are stratified: each depth d gets round(count·share_d)
 * examples (remainder to the largest shares), in an order shuffled by the seed, so the step
 * histogram equals the real one and every prefix of the set is a fair sample.
 */
export function generateProsqa(o: GenerateProsqaOptions): Example[] {
  const cfg = o.config ?? DEFAULT_PROSQA_GEN_CONFIG;
  const rng = new Rng(o.seed).fork('prosqa-generator');
  const depths = stratifiedDepths(
    o.count,
    Object.entries(cfg.stepShares).map(([d, c]) => [Number(d), c]),
    rng.fork('depths'),
  );
  return drawExamples(
    rng,
    depths,
    { ...o, config: cfg, idPrefix: o.idPrefix ?? 'prosqa-gen/train', who: 'generateProsqa' },
    (raw, steps) => chooseAnswer(rng, raw, cfg, steps),
  );
}

/**
 * Each depth d of `shares` ([depth, share] pairs) gets round(count·share_d) places (the remainder
 * to the largest fractional parts), in an order shuffled by `rng`.
 */
export function stratifiedDepths(count: number, shares: (readonly [number, number])[], rng: Rng): number[] {
  const total = shares.reduce((a, [, c]) => a + c, 0);
  const quota = shares
    .map(([d, c]) => ({ d, exact: (count * c) / total }))
    .map((q) => ({ ...q, n: Math.floor(q.exact) }));
  const missing = count - quota.reduce((a, q) => a + q.n, 0);
  [...quota]
    .sort((a, b) => b.exact - b.n - (a.exact - a.n) || a.d - b.d)
    .slice(0, missing)
    .forEach((q) => q.n++);
  return rng.shuffle(quota.flatMap((q) => new Array<number>(q.n).fill(q.d)));
}

/**
 * One example per entry of `depths`: a graph of a drawn size, an answer `choose` finds at that
 * depth, a question neither excluded nor drawn before. N is drawn once per example (redrawn only
 * after 500 failures, e.g. 14 nodes with a 6-step answer), so accepted graphs follow the real node
 * histogram rather than favour large ones.
 */
export function drawExamples(
  rng: Rng,
  depths: number[],
  o: { count: number; exclude?: ReadonlySet<string>; config: ProsqaGenConfig; idPrefix: string; who: string },
  choose: (raw: RawGraph, steps: number) => Answer | null,
): Example[] {
  const out: Example[] = [];
  const seen = new Set<string>();
  let attempts = 0;
  for (const steps of depths) {
    let n = drawFromCounts(rng, o.config.nodeCounts);
    for (let tries = 1; ; tries++) {
      if (++attempts > 1000 * (o.count + 10))
        throw new Error(`${o.who}: gave up after ${attempts} attempts (${out.length}/${o.count})`);
      if (tries % 500 === 0) n = drawFromCounts(rng, o.config.nodeCounts);
      const raw = drawRawGraph(rng, n, o.config);
      const answer = raw && choose(raw, steps);
      if (!raw || !answer) continue;
      const ex = toExample(rng, `${o.idPrefix}/${out.length}`, answer, raw.parents);
      if (o.exclude?.has(ex.question) || seen.has(ex.question)) continue;
      seen.add(ex.question);
      out.push(ex);
      break;
    }
  }
  return out;
}
