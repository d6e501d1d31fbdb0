import { encodeExample, exampleTexts, Tokenizer } from '@telepath/core';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Example } from '../example.js';
import { generateBalancedProsqa } from './balanced.js';
import { prosqaGraph, loadProsqa } from './load.js';
import { checkSymbolicReasoning } from './symbolic-reasoning.js';
import { parseSymbolicQuestion, toSymbolicProsqa } from './symbolic.js';

let real: Example[];
beforeAll(async () => {
  real = [...(await loadProsqa('valid')).examples, ...(await loadProsqa('test')).examples];
});

const sorted = (edges: [string, string][]) => edges.map((e) => e.join(' ')).sort();

describe("ProsQA's grouped rendering (each node's edges together)", () => {
  it('states the same graph as the pairs rendering, each node once, its children in sentence order (800 real questions)', () => {
    for (const ex of real) {
      const pairs = parseSymbolicQuestion(toSymbolicProsqa(ex, 'path').question);
      const grouped = toSymbolicProsqa(ex, 'path', 'grouped');
      const q = parseSymbolicQuestion(grouped.question);
      expect(sorted(q.edges)).toEqual(sorted(pairs.edges));
      expect([q.root, ...q.options]).toEqual([pairs.root, ...pairs.options]);
      const heads = [...grouped.question.matchAll(/ ([A-Za-z]+):/g)].map((m) => m[1]);
      expect(new Set(heads).size).toBe(heads.length);
      for (const u of heads) {
        const children = (es: [string, string][]) => es.filter(([a]) => a === u).map(([, b]) => b);
        expect(children(q.edges)).toEqual(children(pairs.edges));
      }
      expect(grouped.steps).toEqual(toSymbolicProsqa(ex, 'path').steps);
      expect(grouped.meta).toMatchObject({ rendering: 'grouped', reasoning: 'path' });
    }
  });

  it('makes each expansion line a copy of one span of the question, and the checker accepts every trace', () => {
    for (const ex of real) {
      const sym = toSymbolicProsqa(ex, 'expansion', 'grouped');
      for (const line of sym.steps) {
        const [u, ...children] = line.split(' ').slice(1);
        if (children.length > 0) expect(sym.question).toContain(` ${u}: ${children.join(' ')}.`);
        else expect(sym.question).not.toContain(` ${u}:`);
      }
      for (const reasoning of ['path', 'frontier', 'expansion'] as const) {
        const r = toSymbolicProsqa(ex, reasoning, 'grouped');
        expect(checkSymbolicReasoning(r, r.steps.join('\n'))).toMatchObject({ ok: true });
      }
    }
  });

  it("gives one token per name and per ':' with core's tokenizer", () => {
    const train = generateBalancedProsqa({ count: 300, seed: 1 }).map((e) =>
      toSymbolicProsqa(e, 'expansion', 'grouped'),
    );
    const tok = Tokenizer.build(exampleTexts(train));
    for (const ex of real.slice(300, 400)) {
      const g = prosqaGraph(ex);
      const sym = toSymbolicProsqa(ex, 'expansion', 'grouped');
      const heads = new Set(g.edges.map(([u]) => u)).size;
      // each head: name, ':' and '.'; each edge: its child; then '?', the person and two options
      expect(tok.encode(sym.question).length).toBe(3 * heads + g.edges.length + 4);
      expect(encodeExample(tok, sym).prompt).not.toContain(tok.unkId);
    }
  });

  it('rejects a question in neither layout, naming it', () => {
    expect(() => parseSymbolicQuestion(' Bob: ? Sally a b', 'x/2')).toThrow(/x\/2: not a symbolic ProsQA question/);
  });
});
