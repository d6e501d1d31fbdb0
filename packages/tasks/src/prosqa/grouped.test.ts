import { encodeExample, exampleTexts, Tokenizer } from '@telepath/core';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Example } from '../example.js';
import { generateBalancedProsqa } from './balanced.js';
import { prosqaGraph, loadProsqa } from './load.js';
import { checkSymbolicReasoning } from './symbolic-reasoning.js';
import { echoLines, headForm, parseSymbolicQuestion, toSymbolicProsqa } from './symbolic.js';

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

  it('rejects a question in no layout, naming it', () => {
    expect(() => parseSymbolicQuestion(' Bob: ? Sally a b', 'x/2')).toThrow(/x\/2: not a symbolic ProsQA question/);
  });
});

describe("ProsQA's headed rendering (each node's edges together, the node capitalised, no punctuation)", () => {
  it('states the same graph as the grouped rendering, each group opened by its node capitalised (800 real questions)', () => {
    for (const ex of real) {
      const grouped = toSymbolicProsqa(ex, 'path', 'grouped');
      const headed = toSymbolicProsqa(ex, 'path', 'headed');
      const q = parseSymbolicQuestion(headed.question);
      expect(q).toEqual(parseSymbolicQuestion(grouped.question));
      expect(headed.question).not.toMatch(/[:.]/);
      // the grouped question with each " u:" written " U" and its "." dropped
      const fromGrouped = grouped.question
        .replace(/ ([A-Za-z])([a-z]*):/g, (_, a: string, b: string) => ` ${a.toUpperCase()}${b}`)
        .replace(/\./g, '');
      expect(headed.question).toBe(fromGrouped);
      expect(headed.meta).toMatchObject({ rendering: 'headed', reasoning: 'path' });
    }
  });

  it("makes the lookup line and every echo line a token-for-token copy of the question's group, and the checker accepts them", () => {
    for (const ex of real) {
      const lookup = toSymbolicProsqa(ex, 'lookup', 'headed');
      expect(lookup.question).toContain(`${lookup.steps[0].slice(1)} `);
      expect(checkSymbolicReasoning(lookup, lookup.steps.join('\n'))).toMatchObject({ ok: true, reason: 'lookup' });
      const echo = toSymbolicProsqa(ex, 'echo', 'headed');
      expect(echo.steps.map((l) => l.slice(1)).join('')).toBe(echo.question.slice(0, echo.question.indexOf(' ?')));
      expect(checkSymbolicReasoning(echo, echo.steps.join('\n'))).toMatchObject({ ok: true, reason: 'echo' });
      for (const reasoning of ['path', 'frontier', 'expansion'] as const) {
        const r = toSymbolicProsqa(ex, reasoning, 'headed');
        expect(checkSymbolicReasoning(r, r.steps.join('\n'))).toMatchObject({ ok: true });
      }
    }
  });

  it('checks a headed echo line by line: a lower-case parent, a wrong child or a grouped line is wrong', () => {
    const echo = toSymbolicProsqa(real[0], 'echo', 'headed');
    const lines = [...echo.steps];
    const lowered = [lines[0].replace(/^\+ ([A-Z])/, (_, a: string) => `+ ${a.toLowerCase()}`), ...lines.slice(1)];
    expect(checkSymbolicReasoning(echo, lowered.join('\n'))).toMatchObject({ ok: false, reason: 'unparsed' });
    const edges = parseSymbolicQuestion(echo.question).edges;
    const grouped = echoLines(edges, 'grouped');
    expect(checkSymbolicReasoning(echo, grouped.join('\n'))).toMatchObject({ ok: false, reason: 'unparsed' });
    const last = lines.length - 1;
    const swapped = [...lines.slice(0, last), lines[last].replace(/ ([a-z]+)$/, ' zzzpus')];
    expect(checkSymbolicReasoning(echo, swapped.join('\n'))).toMatchObject({ ok: false, reason: 'hallucinated-node' });
    expect(checkSymbolicReasoning(echo, lines.slice(0, last).join('\n'))).toMatchObject({
      ok: false,
      reason: 'wrong-echo',
    });
  });

  it('writes each headed expansion line with its node as the group head: a line with children is a copy of the question', () => {
    let leaves = 0;
    for (const ex of real) {
      const sym = toSymbolicProsqa(ex, 'expansion', 'headed');
      for (const line of sym.steps) {
        expect(line).toMatch(/^\+ [A-Z]/);
        if (line.split(' ').length > 2) expect(`${sym.question} `).toContain(`${line.slice(1)} `);
        else leaves++;
      }
      expect(checkSymbolicReasoning(sym, sym.steps.join('\n'))).toMatchObject({ ok: true, reason: 'expansion' });
      const lowered = sym.steps.map((l) => l.replace(/^\+ ([A-Z])/, (_, a: string) => `+ ${a.toLowerCase()}`));
      // an expanded node in lower case is not the question's head: the line does not parse
      expect(checkSymbolicReasoning(sym, lowered.join('\n'))).toMatchObject({ ok: false, reason: 'unparsed' });
    }
    expect(leaves).toBeGreaterThan(0); // a node without children is expanded too, and opens no group
  });

  it("writes the one-line echo as '+' and the question's groups as they stand, and checks it word by word", () => {
    for (const ex of real) {
      for (const layout of ['headed', 'grouped'] as const) {
        const line = toSymbolicProsqa(ex, 'echo-line', layout);
        expect(line.steps).toHaveLength(1);
        expect(line.steps[0]).toBe(`+${line.question.slice(0, line.question.indexOf(' ?'))}`);
        expect(checkSymbolicReasoning(line, line.steps[0])).toMatchObject({ ok: true, reason: 'echo' });
      }
    }
    const line = toSymbolicProsqa(real[0], 'echo-line', 'headed').steps[0];
    const check = (text: string) => checkSymbolicReasoning(toSymbolicProsqa(real[0], 'echo-line', 'headed'), text);
    const words = line.split(' ');
    const swapped = [...words.slice(0, 3), words[4], words[3], ...words.slice(5)].join(' ');
    expect(check(swapped)).toMatchObject({
      ok: false,
      reason: 'wrong-echo',
      detail: expect.stringMatching(/^word 3: /),
    });
    expect(check(words.slice(0, -1).join(' '))).toMatchObject({ ok: false, reason: 'wrong-echo', detail: /missing/ });
    expect(check(`${line} ${words[2]}`)).toMatchObject({ ok: false, reason: 'wrong-echo' });
    expect(check(`${line}\n${line}`)).toMatchObject({ ok: false, reason: 'wrong-echo' });
    expect(check(`${line} zzzpus`)).toMatchObject({ ok: false, reason: 'hallucinated-node' });
    expect(check(line.slice(2))).toMatchObject({ ok: false, reason: 'unparsed' });
    // a parent written as a child (lower case) is a known node but not the question's text
    expect(
      check(line.replace(/ ([A-Z])([a-z]+pus)/, (_, a: string, b: string) => ` ${a.toLowerCase()}${b}`)),
    ).toMatchObject({
      ok: false,
      reason: 'wrong-echo',
    });
  });

  it("gives a parent and a child of the same name different tokens with core's tokenizer, one token per name", () => {
    const train = generateBalancedProsqa({ count: 300, seed: 1 }).map((e) => toSymbolicProsqa(e, 'echo', 'headed'));
    const tok = Tokenizer.build(exampleTexts(train));
    for (const ex of real.slice(300, 400)) {
      const g = prosqaGraph(ex);
      const sym = toSymbolicProsqa(ex, 'echo', 'headed');
      const heads = new Set(g.edges.map(([u]) => u)).size;
      // each head one token, each edge its child; then '?', the person and two options
      expect(tok.encode(sym.question).length).toBe(heads + g.edges.length + 4);
      expect(encodeExample(tok, sym).prompt).not.toContain(tok.unkId);
    }
    expect(tok.encode(' Boompus')).not.toEqual(tok.encode(' boompus'));
    expect(tok.encode(' Boompus')).toHaveLength(1);
  });

  it("refuses a person outside ProsQA's pool, whose capital could not be told from a parent's", () => {
    expect(() => headForm('Quentin')).toThrow(
      /headed rendering: the person Quentin is not one of ProsQA's 17 person names/,
    );
    expect([headForm('Sally'), headForm('boompus')]).toEqual(['Sally', 'Boompus']);
  });
});
