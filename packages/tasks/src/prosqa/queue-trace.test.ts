import { exampleTexts, Tokenizer } from '@telepath/core';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Example } from '../example.js';
import { generateBalancedProsqa } from './balanced.js';
import type { ProsqaGraph } from './graph.js';
import { loadProsqa } from './load.js';
import { queueProblems, queueTrace } from './queue-trace.js';
import { checkSymbolicReasoning } from './symbolic-reasoning.js';
import { PROSQA_REASONING, toSymbolicProsqa } from './symbolic.js';

let real: Example[];
beforeAll(async () => {
  real = [...(await loadProsqa('valid')).examples, ...(await loadProsqa('test')).examples];
});

// Ann → a, b; a → b, c; b → d; c → e; d → t (target); Bo → f (the distractor, never reachable).
// b is rediscovered under a and must not join the queue twice; t is three hops from a.
const g: ProsqaGraph = {
  symbols: ['Ann', 'Bo', 'a', 'b', 'c', 'd', 'e', 't', 'f'],
  edges: [
    [0, 2],
    [0, 3],
    [2, 3],
    [2, 4],
    [3, 5],
    [4, 6],
    [5, 7],
    [1, 8],
  ],
  root: 0,
  target: 7,
  negTarget: 8,
};

describe('the queue trace (the expansion trace with its queue written out)', () => {
  it('carries the breadth-first queue on a known graph, a rediscovered child joining it once', () => {
    expect(queueTrace(g)).toEqual([
      { node: 0, children: [2, 3], queue: [2, 3], done: [0] },
      { node: 2, children: [3, 4], queue: [3, 4], done: [0, 2] },
      { node: 3, children: [5], queue: [4, 5], done: [0, 2, 3] },
      { node: 4, children: [6], queue: [5, 6], done: [0, 2, 3, 4] },
      { node: 5, children: [7], queue: null, done: null },
    ]);
    expect(queueProblems(g, queueTrace(g), true)).toEqual([]);
    expect(queueProblems(g, queueTrace(g))).toEqual([]);
  });

  it('names what is wrong: the node expanded, the queue stated, the stop', () => {
    const right = queueTrace(g);
    const swapped = right.map((s, k) => (k === 1 ? { ...s, queue: [4, 3] } : s));
    expect(queueProblems(g, swapped)[0]).toBe('step 2: states the queue c b, expected b c');
    const noQueue = right.map((s, k) => (k === 0 ? { ...s, queue: null } : s));
    expect(queueProblems(g, noQueue)).toEqual(['step 1: states no queue (expected a b)']);
    const lastQueue = right.map((s, k) => (k === 4 ? { ...s, queue: [6] } : s));
    expect(queueProblems(g, lastQueue)).toEqual(['step 5: reaches an option, yet states a queue']);
    expect(queueProblems(g, right.slice(0, 4))).toEqual(['step 4: the last step reaches no option']);
    const skipped = [right[0], right[2]];
    expect(queueProblems(g, skipped)[0]).toBe('step 2: expands b, but the queue starts with a');
    const missing = right.map((s, k) => (k === 0 ? { ...s, children: [2] } : s));
    expect(queueProblems(g, missing)[0]).toBe("step 1: misses Ann's child b");
    expect(queueProblems(g, [])).toEqual(['the trace is empty']);
  });

  it("checks the done form's lists of expanded nodes only when asked to", () => {
    const right = queueTrace(g);
    const shortDone = right.map((s, k) => (k === 2 ? { ...s, done: [0, 3] } : s));
    expect(queueProblems(g, shortDone)).toEqual([]);
    expect(queueProblems(g, shortDone, true)).toEqual(['step 3: states the done list Ann b, expected Ann a b']);
    const noDone = right.map((s, k) => (k === 0 ? { ...s, done: null } : s));
    expect(queueProblems(g, noDone, true)).toEqual(['step 1: states no done list (expected Ann)']);
    const lastDone = right.map((s, k) => (k === 4 ? { ...s, done: [0] } : s));
    expect(queueProblems(g, lastDone, true)).toEqual(['step 5: reaches an option, yet states a done list']);
  });

  it('is sound on all 800 real questions, headed and grouped; without its queues it is the expansion trace', () => {
    for (const ex of real) {
      for (const layout of ['headed', 'grouped'] as const) {
        const sym = toSymbolicProsqa(ex, 'expansion-queue', layout);
        expect(checkSymbolicReasoning(sym, sym.steps.join('\n'))).toMatchObject({
          ok: true,
          reason: 'expansion-queue',
        });
        const expansion = toSymbolicProsqa(ex, 'expansion', layout).steps;
        expect(sym.steps.map((line) => line.split(':')[0])).toEqual(expansion);
        const last = sym.steps[sym.steps.length - 1];
        expect(last).not.toContain(':');
        expect(last.split(' ')).toContain(sym.answer);
        // each line expands the first node of the queue the line above states
        for (let k = 1; k < sym.steps.length; k++) {
          const next = sym.steps[k - 1].split(': ')[1].split(' ')[0];
          const head = sym.steps[k].split(':')[0].split(' ')[1];
          expect(head).toBe(layout === 'headed' ? next[0].toUpperCase() + next.slice(1) : next);
        }
      }
    }
  });

  it("in the done form: sound on all 800 real questions, its lines the queue form's with the nodes expanded so far", () => {
    for (const ex of real) {
      for (const layout of ['headed', 'grouped'] as const) {
        const done = toSymbolicProsqa(ex, 'expansion-queue-done', layout);
        expect(checkSymbolicReasoning(done, done.steps.join('\n'))).toMatchObject({
          ok: true,
          reason: 'expansion-queue-done',
        });
        const queue = toSymbolicProsqa(ex, 'expansion-queue', layout).steps;
        expect(done.steps.map((line) => line.split('>')[0])).toEqual(queue);
        expect(done.steps[done.steps.length - 1]).not.toContain('>');
        // line k's done list: the root, then the node of every line up to k, as the child token
        const heads = done.steps.map((line) => line.split(':')[0].split(' ')[1]);
        for (let k = 0; k < done.steps.length - 1; k++) {
          const listed = done.steps[k].split('> ')[1].split(' ');
          expect(listed.map((n) => n.toLowerCase())).toEqual(heads.slice(0, k + 1).map((n) => n.toLowerCase()));
          expect(listed[0]).toBe(heads[0]);
        }
      }
    }
    // the queue form does not take a done list, nor the done form a line without one
    const queue = toSymbolicProsqa(real[0], 'expansion-queue', 'headed');
    const done = toSymbolicProsqa(real[0], 'expansion-queue-done', 'headed');
    expect(checkSymbolicReasoning(queue, done.steps.join('\n'))).toMatchObject({ ok: false, reason: 'unparsed' });
    expect(checkSymbolicReasoning(done, queue.steps.join('\n'))).toMatchObject({ ok: false, reason: 'unparsed' });
    const wrongDone = done.steps.map((l, k) => (k === 1 ? l.replace(/>( [A-Za-z]+)/, '>') : l));
    expect(checkSymbolicReasoning(done, wrongDone.join('\n'))).toMatchObject({
      ok: false,
      reason: 'wrong-queue',
      detail: expect.stringMatching(/^step 2: states the done list/),
    });
  });

  it('in the cut form: the last line stops at the first option, on a known graph and on every real and 1,000 generated questions', () => {
    // d → t, e: the option t comes first, so the cut line drops e
    const h: ProsqaGraph = { ...g, symbols: [...g.symbols, 'e2'], edges: [...g.edges, [5, 9]] };
    const full = queueTrace(h);
    const cut = queueTrace(h, true);
    expect(full[full.length - 1].children).toEqual([7, 9]);
    expect(cut[cut.length - 1].children).toEqual([7]);
    expect(cut.slice(0, -1)).toEqual(full.slice(0, -1));
    expect(queueProblems(h, cut, true, true)).toEqual([]);
    expect(queueProblems(h, full, true, true)).toEqual([`step ${full.length}: e2 is not a child of d`]); // listed past the option
    expect(queueProblems(h, cut, true)).toEqual([`step ${cut.length}: misses d's child e2`]); // the uncut form wants every child
    const generated = generateBalancedProsqa({ count: 1000, seed: 5 });
    let shorter = 0;
    for (const ex of [...real, ...generated]) {
      const sym = toSymbolicProsqa(ex, 'expansion-queue-done-cut', 'headed');
      expect(checkSymbolicReasoning(sym, sym.steps.join('\n'))).toMatchObject({
        ok: true,
        reason: 'expansion-queue-done-cut',
      });
      const done = toSymbolicProsqa(ex, 'expansion-queue-done', 'headed').steps;
      expect(sym.steps.slice(0, -1)).toEqual(done.slice(0, -1));
      const [last, whole] = [sym.steps[sym.steps.length - 1], done[done.length - 1]];
      expect(whole.startsWith(last)).toBe(true);
      expect(
        last
          .split(' ')
          .slice(2)
          .filter((n) => n === sym.answer || ex.question.endsWith(` ${n}?`)),
      ).not.toEqual([]);
      if (last !== whole) shorter++;
    }
    expect(shorter).toBeGreaterThan(100); // the cut changes many traces, not a handful
  });

  it('is sound on generated training questions too', () => {
    for (const ex of generateBalancedProsqa({ count: 200, seed: 3 })) {
      const sym = toSymbolicProsqa(ex, 'expansion-queue', 'headed');
      expect(checkSymbolicReasoning(sym, sym.steps.join('\n'))).toMatchObject({ ok: true, reason: 'expansion-queue' });
      const done = toSymbolicProsqa(ex, 'expansion-queue-done', 'headed');
      expect(checkSymbolicReasoning(done, done.steps.join('\n'))).toMatchObject({
        ok: true,
        reason: 'expansion-queue-done',
      });
    }
  });

  it('checks written lines: a wrong queue, a lower-case head in the headed rendering, an unknown name, a stray mark', () => {
    const sym = toSymbolicProsqa(real[0], 'expansion-queue', 'headed');
    const lines = [...sym.steps];
    expect(lines.length).toBeGreaterThan(2);
    const check = (ls: string[]) => checkSymbolicReasoning(sym, ls.join('\n'));
    const dropped = lines.map((l, k) => (k === 0 ? l.replace(/ [a-z]+$/, '') : l));
    expect(check(dropped)).toMatchObject({ ok: false, reason: 'wrong-queue' });
    expect(check(dropped).detail).toMatch(/^step 1: states the queue/);
    // the second line's head is a concept (the first is the person, capitalised in every rendering)
    const lowered = lines.map((l, k) =>
      k === 1 ? l.replace(/^\+ ([A-Z])/, (_, a: string) => `+ ${a.toLowerCase()}`) : l,
    );
    expect(check(lowered)).toMatchObject({ ok: false, reason: 'unparsed', detail: expect.stringMatching(/^step 2 /) });
    expect(check([lines[0].replace(/ ([a-z]+)$/, ' zzzpus'), ...lines.slice(1)])).toMatchObject({
      ok: false,
      reason: 'hallucinated-node',
    });
    expect(check([`${lines[0]}: x`, ...lines.slice(1)])).toMatchObject({ ok: false, reason: 'unparsed' });
    expect(check(lines.slice(0, -1))).toMatchObject({ ok: false, reason: 'wrong-queue' });
  });

  it('adds no token to the headed vocabulary the other written forms make (an arm can start from their weights)', () => {
    const sample = real.slice(0, 200);
    const others = PROSQA_REASONING.filter((r) => !r.startsWith('expansion-queue')).flatMap((r) =>
      sample.map((ex) => toSymbolicProsqa(ex, r, 'headed')),
    );
    const tokenizer = Tokenizer.build(exampleTexts(others), {});
    for (const form of ['expansion-queue', 'expansion-queue-done', 'expansion-queue-done-cut'] as const) {
      const queue = sample.map((ex) => toSymbolicProsqa(ex, form, 'headed'));
      expect(tokenizer.countUnknown(exampleTexts(queue)).unknown).toBe(0);
    }
  });
});
