import { encodeExample, exampleTexts, Tokenizer } from '@telepath/core';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Example } from '../example.js';
import { generateBalancedProsqa } from './balanced.js';
import { prosqaGraph, loadProsqa } from './load.js';
import { englishFromSymbolic, parseSymbolicQuestion, toSymbolicProsqa } from './symbolic.js';

let real: Example[];
beforeAll(async () => {
  real = [...(await loadProsqa('valid')).examples, ...(await loadProsqa('test')).examples];
});

describe('symbolic ProsQA rendering', () => {
  it('round-trips every real question, path and answer back to the exact English (300 valid + 500 test)', () => {
    expect(real.length).toBe(800);
    const mismatched = real.filter(
      (ex) => JSON.stringify(englishFromSymbolic(toSymbolicProsqa(ex, 'path'))) !== JSON.stringify(ex),
    );
    expect(mismatched.map((e) => e.id)).toEqual([]);
  });

  it('keeps the question and answer lossless under the frontier and expansion traces too', () => {
    for (const ex of real) {
      expect(englishFromSymbolic(toSymbolicProsqa(ex, 'frontier'), ex.steps)).toEqual(ex);
      expect(englishFromSymbolic(toSymbolicProsqa(ex, 'expansion'), ex.steps)).toEqual(ex);
    }
  });

  it("writes an expansion line's children in the order the question states their edges", () => {
    for (const ex of real) {
      const sym = toSymbolicProsqa(ex, 'expansion');
      const { edges, root } = parseSymbolicQuestion(sym.question);
      expect(sym.steps[0].split(' ')[1]).toBe(root);
      for (const line of sym.steps) {
        const [u, ...children] = line.split(' ').slice(1);
        expect(children).toEqual(edges.filter(([a]) => a === u).map(([, b]) => b));
      }
    }
    // test/0 (Sally): the first line is Sally and her children, in sentence order
    const sally = toSymbolicProsqa(real[300], 'expansion');
    const first = parseSymbolicQuestion(sally.question).edges.filter(([a]) => a === 'Sally');
    expect(sally.steps[0]).toBe(`+ Sally ${first.map(([, b]) => b).join(' ')}`);
  });

  it('renders an edge as a pair and the question as the person and its two options', () => {
    const ex = real[300]; // test/0: "… Is Sally a hilpus or sterpus?"
    const sym = toSymbolicProsqa(ex);
    expect(sym.question.startsWith(' gerpus terpus. terpus zhorpus. lempus yerpus.')).toBe(true);
    expect(sym.question.endsWith(' rorpus impus. boompus gerpus. ? Sally hilpus sterpus')).toBe(true);
    expect(sym.steps).toEqual(['> Sally scrompus', '> scrompus rempus', '> rempus sterpus']);
    expect(sym.answer).toBe('sterpus');
    expect(parseSymbolicQuestion(sym.question).edges.length).toBe(prosqaGraph(ex).edges.length);
    expect(toSymbolicProsqa(ex, 'frontier').steps[0].startsWith(': ')).toBe(true);
  });

  it('rejects text that is not the rendering, naming the example', () => {
    expect(() => parseSymbolicQuestion(' bob lempus ? Sally a b', 'x/1')).toThrow(
      /x\/1: not a symbolic ProsQA question/,
    );
    const sym = { ...toSymbolicProsqa(real[0]), steps: ['Bob lempus'] };
    expect(() => englishFromSymbolic(sym)).toThrow(/step 1 "Bob lempus" is not "> u v"/);
  });

  it("gives one token per name with core's tokenizer, the same id wherever the name stands", () => {
    const train = generateBalancedProsqa({ count: 300, seed: 1 }).flatMap((e) => [
      toSymbolicProsqa(e, 'path'),
      toSymbolicProsqa(e, 'frontier'),
      toSymbolicProsqa(e, 'expansion'),
    ]);
    const tok = Tokenizer.build(exampleTexts(train)); // what the lab's runTokenizer builds
    for (const ex of real.slice(300, 400)) {
      const g = prosqaGraph(ex);
      const idOf = new Map(
        g.symbols
          .map((s) => [tok.encode(` ${s}`), s] as const)
          .map(([ids, s]) => {
            expect(ids.length).toBe(1); // every real name is one token, learnt from generated graphs alone
            return [ids[0], s];
          }),
      );
      for (const reasoning of ['path', 'frontier', 'expansion'] as const) {
        const sym = toSymbolicProsqa(ex, reasoning);
        const enc = encodeExample(tok, sym);
        const ids = [...enc.prompt, ...enc.reasoning, ...enc.answer];
        expect(ids).not.toContain(tok.unkId);
        const names = ids.filter((i) => idOf.has(i)).map((i) => idOf.get(i));
        const written = `${sym.question} ${sym.steps.join(' ')} ${sym.answer}`.match(/[A-Za-z]+/g)!;
        expect(names).toEqual(written); // each name in the text is exactly one token, none split or merged
        // every step line starts with its mark as one token of its own, after the line break
        const mark = { path: '>', frontier: ':', expansion: '+' }[reasoning];
        expect(enc.reasoning.filter((i) => tok.tokens[i] === mark).length).toBe(sym.steps.length);
      }
      expect(tok.encode(toSymbolicProsqa(ex).question).length).toBe(3 * g.edges.length + 4);
    }
  });
});
