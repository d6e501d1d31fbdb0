import { describe, expect, it } from 'vitest';
import type { Example } from '../example.js';
import type { ProsqaGraph } from './graph.js';
import { loadProsqa } from './load.js';
import { checkProsqaReasoning } from './reasoning.js';
import { prosqaTask } from './task.js';

// Tom → wumpus → zumpus (shortest, 2 steps); Tom → rempus → yumpus → zumpus (3 steps); rempus → lorpus; Sam → numpus.
const graph: ProsqaGraph = {
  symbols: ['Tom', 'wumpus', 'yumpus', 'zumpus', 'rempus', 'lorpus', 'Sam', 'numpus'],
  edges: [
    [0, 1],
    [1, 3],
    [0, 4],
    [4, 2],
    [2, 3],
    [4, 5],
    [6, 7],
  ],
  root: 0,
  target: 3,
  negTarget: 7,
};
const example: Example = {
  id: 'toy/0',
  question: '… Is Tom a zumpus or numpus?',
  steps: [],
  answer: 'Tom is a zumpus.',
  meta: { graph },
};
const verdict = (text: string) => checkProsqaReasoning(example, text).reason;

describe('ProsQA reasoning check', () => {
  it('tells shortest and longer sound paths from hallucinated, broken, off-target and unreadable ones', () => {
    expect(checkProsqaReasoning(example, 'Tom is a wumpus. Every wumpus is a zumpus.')).toEqual({
      ok: true,
      reason: 'shortest-path',
      detail: '2 steps',
    });
    expect(
      checkProsqaReasoning(example, 'Tom is a rempus.\nEvery rempus is a yumpus.\nEvery yumpus is a zumpus.'),
    ).toMatchObject({ ok: true, reason: 'longer-path' });
    expect(verdict('Tom is a wumpus. Every wumpus is a yumpus.')).toBe('hallucinated-edge');
    expect(verdict('Tom is a rempus. Every wumpus is a zumpus.')).toBe('broken-chain');
    expect(verdict('Sam is a numpus.')).toBe('broken-chain'); // a real fact, but not about Tom
    expect(verdict('Tom is a rempus. Every rempus is a lorpus.')).toBe('wrong-target');
    expect(verdict('Tom likes cats.')).toBe('unparsed');
    expect(checkProsqaReasoning(example, 'Tom is a dragon.')).toMatchObject({
      reason: 'hallucinated-edge',
      detail: 'step 1 "Tom is a dragon.": names dragon, not in the question',
    });
    expect(verdict('Every dragon is a zumpus.')).toBe('hallucinated-edge');
    expect(verdict('  ')).toBe('empty');
    expect(checkProsqaReasoning(example, 'Tom is a wumpus. Every wumpus is a yumpus.').detail).toBe(
      'step 2 "Every wumpus is a yumpus.": not a fact of the question',
    );
  });

  it("finds every real valid question's own steps a shortest path (the files' steps are BFS paths)", async () => {
    const { examples } = await loadProsqa('valid');
    const reasons = examples.map((ex) => prosqaTask.checkReasoning!(ex, ex.steps.join(' ')).reason);
    expect(reasons.filter((r) => r === 'shortest-path')).toHaveLength(examples.length);
  });
});
