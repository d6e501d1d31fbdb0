/**
 * Balanced ProsQA training graphs (issue 21). The real files carry a counting shortcut: the
 * target is the option the question mentions less often in 66.2 % of the 500 test questions
 * (65.0 % of the 300 valid). A leaf is mentioned once per parent plus once in "Is Name a A or B?",
 * so its mentions are its in-degree + 1. This generator grows graphs exactly as `generateProsqa`
 * does (generate.ts) but draws the target and the distractor as a pair of equal in-degree — hence
 * equal mention counts — and names the target first or second with probability ½ each, so neither
 * counting nor position can tell them apart. `balanced.test.ts` measures both rates over 10,000
 * graphs.
 *
 * Depth curriculum (2 → 6 hops): `depthShares` gives the share of each answer depth, and with
 * `curriculum` the set is ordered in stages — stage s of S holds depths 2..2+s in equal parts —
 * so any prefix is a shallower set than the whole. `curriculumStage` says which stage an example
 * index falls in; `curriculumPrefix` says how much of the ordered set a trainer may draw from at a
 * training step, so that depth rises with the steps (the lab's `data.curriculumSteps`).
 */
import { Rng } from '@telepath/core';
import type { Example } from '../example.js';
import {
  DEFAULT_PROSQA_GEN_CONFIG,
  drawExamples,
  stratifiedDepths,
  type Answer,
  type ProsqaGenConfig,
  type RawGraph,
} from './generate.js';
import { bfsDistances, childLists, parentCounts, sampleShortestPath } from './graph.js';

/** Bump when the balanced generator's output for a given seed changes. */
export const PROSQA_BALANCED_VERSION = 1;
export const CURRICULUM_MIN_DEPTH = 2;
export const CURRICULUM_MAX_DEPTH = 6;

export interface BalancedProsqaOptions {
  count: number;
  seed: number;
  /** Share of each answer depth (hops); default equal shares of 2..6. Ignored with `curriculum`. */
  depthShares?: Record<number, number>;
  /** Order the set in stages of rising depth (2, 2-3, …, 2-6); default false (shuffled). */
  curriculum?: boolean;
  /** Questions to leave out (the real valid and test questions). */
  exclude?: ReadonlySet<string>;
  /** Graph growth (node counts, parents, labels); default the ProsQA generator's. */
  config?: ProsqaGenConfig;
  /** Ids are `<idPrefix>/<index>`; default "prosqa-balanced/train". */
  idPrefix?: string;
}

export const DEFAULT_DEPTH_SHARES: Record<number, number> = { 2: 1, 3: 1, 4: 1, 5: 1, 6: 1 };

/** The curriculum stage (0-based) of example `index` of `count`: stage s allows depths 2..2+s. */
export function curriculumStage(index: number, count: number): number {
  const stages = CURRICULUM_MAX_DEPTH - CURRICULUM_MIN_DEPTH + 1;
  return Math.min(stages - 1, Math.floor((index * stages) / count));
}

/**
 * How many examples of an ordered (`curriculum`) set of `count` a trainer draws from at `step`:
 * the end of stage ⌊step · S / curriculumSteps⌋ (S = 5 stages, depths 2..2+s), the whole set from
 * `curriculumSteps` on. `curriculumSteps` 0 means no curriculum (the whole set at every step).
 */
export function curriculumPrefix(step: number, curriculumSteps: number, count: number): number {
  if (!Number.isInteger(step) || step < 0)
    throw new Error(`curriculumPrefix: step must be an integer ≥ 0, got ${step}`);
  if (curriculumSteps <= 0) return count;
  const stages = CURRICULUM_MAX_DEPTH - CURRICULUM_MIN_DEPTH + 1;
  const stage = curriculumStage(step, curriculumSteps); // steps are staged as the set's indices are
  // The first index of stage+1 (curriculumStage's inverse), or the whole set for the last stage.
  return stage === stages - 1 ? count : Math.ceil(((stage + 1) * count) / stages);
}

/** Picks root, a target at `steps` hops and a distractor of the same in-degree; null when no such pair. */
function chooseBalanced(rng: Rng, raw: RawGraph, steps: number): Answer | null {
  const n = raw.parents.length;
  const edges: [number, number][] = [];
  raw.parents.forEach((ps, v) => ps.forEach((u) => edges.push([u, v])));
  const ch = childLists(n, edges);
  const indegree = parentCounts(n, edges);
  const isLeaf = (i: number) => ch[i].length === 0 && indegree[i] > 0;
  const roles = [0, 1].flatMap((root) => {
    const bit = root === 0 ? 1 : 2;
    const dist = bfsDistances(ch, root);
    const targets = [...Array(n).keys()].filter((i) => isLeaf(i) && raw.labels[i] === bit && dist[i] === steps);
    const negs = [...Array(n).keys()].filter((i) => isLeaf(i) && raw.labels[i] === 3 - bit);
    const pairs = targets.flatMap((t) => negs.filter((x) => indegree[x] === indegree[t]).map((x) => [t, x] as const));
    return pairs.length > 0 ? [{ root, pairs }] : [];
  });
  if (roles.length === 0) return null;
  const role = rng.pick(roles);
  const [target, negTarget] = rng.pick(role.pairs);
  return { edges, root: role.root, target, negTarget, path: sampleShortestPath(ch, role.root, target, rng) };
}

/** The answer depth of each example, in set order. */
function depthPlan(o: BalancedProsqaOptions, rng: Rng): number[] {
  if (o.curriculum) {
    return Array.from({ length: o.count }, (_, i) => CURRICULUM_MIN_DEPTH + rng.int(curriculumStage(i, o.count) + 1));
  }
  const shares = Object.entries(o.depthShares ?? DEFAULT_DEPTH_SHARES).map(([d, c]) => [Number(d), c] as const);
  for (const [d, c] of shares) {
    if (!Number.isInteger(d) || d < 1 || !(c >= 0))
      throw new Error(`generateBalancedProsqa: depthShares needs integer depths ≥ 1 with shares ≥ 0, got ${d}: ${c}`);
  }
  return stratifiedDepths(o.count, shares, rng);
}

/** `count` balanced examples in the English rendering (toSymbolicProsqa converts them). */
export function generateBalancedProsqa(o: BalancedProsqaOptions): Example[] {
  const cfg = o.config ?? DEFAULT_PROSQA_GEN_CONFIG;
  const rng = new Rng(o.seed).fork('prosqa-balanced');
  const depths = depthPlan(o, rng.fork('depths'));
  return drawExamples(
    rng,
    depths,
    { ...o, config: cfg, idPrefix: o.idPrefix ?? 'prosqa-balanced/train', who: 'generateBalancedProsqa' },
    (raw, steps) => chooseBalanced(rng, raw, steps),
  );
}
