import { beforeAll, describe, expect, it } from 'vitest';
import type { Example } from '../example.js';
import { generateBalancedProsqa } from './balanced.js';
import { bfsDistances, childLists, type ProsqaGraph } from './graph.js';
import { loadProsqa, prosqaGraph } from './load.js';
import { frontierProblems, frontierTrace, pathFromSteps, pathProblems } from './traces.js';

let sets: Example[];
beforeAll(async () => {
  const real = [...(await loadProsqa('valid')).examples, ...(await loadProsqa('test')).examples];
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
