import { beforeAll, describe, expect, it } from 'vitest';
import type { Example } from '../example.js';
import { generateBalancedProsqa } from './balanced.js';
import { bfsDistances, childLists, type ProsqaGraph } from './graph.js';
import { loadProsqa, prosqaGraph } from './load.js';
import {
  expansionProblems,
  expansionTrace,
  frontierProblems,
  frontierTrace,
  pathFromSteps,
  pathProblems,
} from './traces.js';

let sets: Example[];
let real: Example[];
beforeAll(async () => {
  real = [...(await loadProsqa('valid')).examples, ...(await loadProsqa('test')).examples];
  sets = [...real, ...generateBalancedProsqa({ count: 500, seed: 2 })];
});

describe('ProsQA traces, verified against the graph', () => {
  it("ProsQA's own path follows real edges from the asked person to the target (800 real + 500 balanced)", () => {
    const bad = sets.flatMap((ex) =>
      pathProblems(prosqaGraph(ex), pathFromSteps(prosqaGraph(ex), ex.steps)).map((p) => `${ex.id}: ${p}`),
    );
    expect(bad).toEqual([]);
  });

  it('the frontier trace follows real edges, is complete at every step and stops at the first option reached', () => {
    for (const ex of sets) {
      const g = prosqaGraph(ex);
      const trace = frontierTrace(g);
      expect(frontierProblems(g, trace)).toEqual([]);
      // one step per hop of the shortest path, and the last step holds the target, never the distractor
      expect(trace.length).toBe(bfsDistances(childLists(g.symbols.length, g.edges), g.root)[g.target]);
      expect(trace.at(-1)).toContain(g.target);
      expect(trace.flat()).not.toContain(g.negTarget);
    }
  });

  // A small graph: Ann → a → c (target), Ann → b, b → d; Bo → e (distractor).
  const g: ProsqaGraph = {
    symbols: ['Ann', 'Bo', 'a', 'b', 'c', 'd', 'e'],
    edges: [
      [0, 2],
      [0, 3],
      [2, 4],
      [3, 5],
      [1, 6],
    ],
    root: 0,
    target: 4,
    negTarget: 6,
  };

  it('writes the frontier of a known graph in discovery order', () => {
    expect(frontierTrace(g)).toEqual([
      [2, 3],
      [2, 3, 4, 5],
    ]);
  });

  it('the verifiers catch an invented edge, a missed node, a node reached too early and a trace that runs on', () => {
    expect(pathProblems(g, [0, 2, 4])).toEqual([]);
    expect(pathProblems(g, [0, 3, 4])).toEqual(['step 2: b → c is not an edge']);
    expect(pathProblems(g, [0, 3, 5])).toEqual(['the path ends at d, not at the target c']);
    expect(
      frontierProblems(g, [
        [2, 3],
        [2, 3, 4],
      ]),
    ).toEqual(['step 2: incomplete, misses d']);
    expect(
      frontierProblems(g, [
        [2, 3, 4],
        [2, 3, 4, 5],
      ]),
    ).toEqual(['step 1: c is not a child of a node reached before', 'step 1: reaches an option but the trace goes on']);
    expect(
      frontierProblems(g, [
        [2, 3],
        [2, 3, 4, 5, 6],
      ]),
    ).toEqual(['step 2: e is not a child of a node reached before']);
    expect(frontierProblems(g, [[2]])).toEqual([
      'step 1: incomplete, misses b',
      'step 1: the last step reaches no option',
    ]);
    expect(
      frontierProblems(g, [
        [3, 2],
        [2, 3, 4, 5],
      ]),
    ).toEqual(["step 2: does not start with step 1's nodes"]);
  });
});

describe('the expansion trace, verified against the graph', () => {
  it('expands the breadth-first queue one node per step, lists exactly its children and stops at the first option (800 real + 1,000 balanced)', () => {
    const all = [...real, ...generateBalancedProsqa({ count: 1000, seed: 5 })];
    expect(all.length).toBe(1800);
    for (const ex of all) {
      const g = prosqaGraph(ex);
      const ch = childLists(g.symbols.length, g.edges);
      const trace = expansionTrace(g);
      expect(expansionProblems(g, trace)).toEqual([]);
      expect(trace[0][0]).toBe(g.root);
      for (const [u, ...children] of trace) expect(children).toEqual(ch[u]); // a pure lookup, in g.edges' order
      expect(new Set(trace.map((line) => line[0])).size).toBe(trace.length); // no node expanded twice
      expect(trace.at(-1)!.slice(1)).toContain(g.target);
      expect(trace.flat()).not.toContain(g.negTarget);
      // the first line reaching the target: it expands a node at depth − 1 of the shortest path
      const depth = bfsDistances(ch, g.root);
      expect(depth[trace.at(-1)![0]]).toBe(depth[g.target] - 1);
    }
  });

  // Ann → b, Ann → a; b → d; a → d; a → c; c → f (target); Bo → e (distractor); d has no children.
  const g: ProsqaGraph = {
    symbols: ['Ann', 'Bo', 'a', 'b', 'c', 'd', 'e', 'f'],
    edges: [
      [0, 3],
      [0, 2],
      [3, 5],
      [2, 5],
      [2, 4],
      [4, 7],
      [1, 6],
    ],
    root: 0,
    target: 7,
    negTarget: 6,
  };
  const right = [[0, 3, 2], [3, 5], [2, 5, 4], [5], [4, 7]];

  it('writes the expansion of a known graph: children in edge order, a reached child listed again, a leaf alone', () => {
    expect(expansionTrace(g)).toEqual(right);
    expect(expansionProblems(g, right)).toEqual([]);
    expect(() => expansionTrace({ ...g, root: 1, negTarget: 4 })).toThrow(
      /expansionTrace: no option is reachable from Bo/,
    );
  });

  it("accepts a line's children in any order, the queue then following the order written", () => {
    // a before b: a is expanded first, and c (a's child) before d
    expect(
      expansionProblems(g, [
        [0, 2, 3],
        [2, 4, 5],
        [3, 5],
        [4, 7],
      ]),
    ).toEqual([]);
    expect(
      expansionProblems(g, [
        [0, 2, 3],
        [3, 5],
        [2, 4, 5],
        [4, 7],
      ]),
    ).toEqual([
      'step 2: expands b, but the next node to expand is a',
      'step 4: expands c, but the next node to expand is d', // d was reached before c in this trace
    ]);
  });

  it('catches a wrong node, a missing, invented or repeated child, an early stop and a trace that runs on', () => {
    expect(expansionProblems(g, [[0, 3, 2], [2, 5, 4], [3, 5], [5], [4, 7]])).toEqual([
      'step 2: expands a, but the next node to expand is b',
    ]);
    expect(expansionProblems(g, [[0, 3, 2], [3, 5], [2, 4], [5], [4, 7]])).toEqual(["step 3: misses a's child d"]);
    expect(expansionProblems(g, [[0, 3, 2], [3, 5, 4], [2, 5, 4], [5], [4, 7]])).toEqual([
      'step 2: c is not a child of b',
    ]);
    expect(expansionProblems(g, [[0, 3, 2], [3, 5, 5], [2, 5, 4], [5], [4, 7]])).toEqual([
      'step 2: lists a child twice',
    ]);
    expect(expansionProblems(g, right.slice(0, 3))).toEqual(['step 3: the last step reaches no option']);
    expect(expansionProblems(g, [...right, [7]])).toEqual([
      'step 5: reaches an option but the trace goes on',
      'step 6: the last step reaches no option',
    ]);
    expect(expansionProblems(g, [[0, 3, 2, 7]])).toEqual(['step 1: f is not a child of Ann']);
    expect(expansionProblems(g, [[0], [3, 5]])).toEqual([
      "step 1: misses Ann's children b, a", // still queued: step 2 expands the right node
      'step 2: the last step reaches no option',
    ]);
    expect(
      expansionProblems(g, [
        [0, 3, 2],
        [3, 5],
        [0, 3, 2],
      ])[0],
    ).toBe('step 3: expands Ann, but the next node to expand is a');
    expect(expansionProblems(g, [[0, 3, 2], []])).toEqual([
      'step 2: expands no node',
      'step 2: the last step reaches no option',
    ]);
    expect(expansionProblems(g, [])).toEqual(['the trace is empty']);
  });
});
