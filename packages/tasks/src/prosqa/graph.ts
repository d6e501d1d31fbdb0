/**
 * The ProsQA graph (docs/datasets.md §4): nodes are named by `symbols` (index = node id), edges
 * [u, v] read "every u is a v" (or "Name is a v" when u is a person), `root` is the queried
 * person, `target` the correct concept and `negTarget` the wrong one. Helpers for the properties
 * the loader checks and the statistics report measures.
 */
import type { Rng } from '@telepath/core';

export interface ProsqaGraph {
  symbols: string[];
  edges: [number, number][];
  root: number;
  target: number;
  negTarget: number;
}

/** Children lists, index = node id. */
export function childLists(n: number, edges: readonly (readonly [number, number])[]): number[][] {
  const ch: number[][] = Array.from({ length: n }, () => []);
  for (const [u, v] of edges) ch[u].push(v);
  return ch;
}

export function parentCounts(n: number, edges: readonly (readonly [number, number])[]): number[] {
  const p = new Array<number>(n).fill(0);
  for (const [, v] of edges) p[v]++;
  return p;
}

/** Breadth-first distances from `src` (−1 where unreachable). */
export function bfsDistances(children: number[][], src: number): number[] {
  const d = new Array<number>(children.length).fill(-1);
  d[src] = 0;
  const queue = [src];
  for (let i = 0; i < queue.length; i++) {
    const u = queue[i];
    for (const v of children[u]) {
      if (d[v] < 0) {
        d[v] = d[u] + 1;
        queue.push(v);
      }
    }
  }
  return d;
}

/** Nodes reachable from `src`, `src` included. */
export function reachable(children: number[][], src: number): Set<number> {
  const seen = new Set([src]);
  const stack = [src];
  while (stack.length > 0) {
    for (const v of children[stack.pop()!]) {
      if (!seen.has(v)) {
        seen.add(v);
        stack.push(v);
      }
    }
  }
  return seen;
}

/** Number of distinct shortest paths src→dst per node (0 where unreachable). */
export function shortestPathCounts(children: number[][], src: number): { dist: number[]; count: number[] } {
  const dist = bfsDistances(children, src);
  const count = new Array<number>(children.length).fill(0);
  count[src] = 1;
  const order = dist
    .map((d, i) => [d, i] as const)
    .filter(([d]) => d >= 0)
    .sort((a, b) => a[0] - b[0]);
  for (const [du, u] of order) {
    for (const v of children[u]) if (dist[v] === du + 1) count[v] += count[u];
  }
  return { dist, count };
}

/**
 * One shortest path src→dst (node ids, src first), chosen uniformly among all shortest paths:
 * walking back from dst, each predecessor is taken with probability proportional to its count.
 */
export function sampleShortestPath(children: number[][], src: number, dst: number, rng: Rng): number[] {
  const { dist, count } = shortestPathCounts(children, src);
  if (dist[dst] < 0) throw new Error(`sampleShortestPath: node ${dst} is not reachable from ${src}`);
  const parents: number[][] = Array.from({ length: children.length }, () => []);
  children.forEach((cs, u) => cs.forEach((v) => parents[v].push(u)));
  const path = [dst];
  let v = dst;
  while (v !== src) {
    const preds = parents[v].filter((u) => dist[u] === dist[v] - 1);
    let r = rng.float() * count[v];
    let chosen = preds[preds.length - 1];
    for (const u of preds) {
      r -= count[u];
      if (r < 0) {
        chosen = u;
        break;
      }
    }
    path.push(chosen);
    v = chosen;
  }
  return path.reverse();
}

/** Length in edges of the longest path starting at `src` (the graph is a DAG). */
export function longestPathFrom(children: number[][], src: number, memo = new Map<number, number>()): number {
  const known = memo.get(src);
  if (known !== undefined) return known;
  let best = 0;
  for (const v of children[src]) best = Math.max(best, 1 + longestPathFrom(children, v, memo));
  memo.set(src, best);
  return best;
}

/** The sentence stating edge u→v (docs/datasets.md §4: always "a", never "an"). */
export function edgeSentence(
  symbols: readonly string[],
  u: number,
  v: number,
  isPerson: (i: number) => boolean,
): string {
  return isPerson(u) ? `${symbols[u]} is a ${symbols[v]}.` : `Every ${symbols[u]} is a ${symbols[v]}.`;
}
