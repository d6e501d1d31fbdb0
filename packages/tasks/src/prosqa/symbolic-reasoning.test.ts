import { exampleTexts, Tokenizer } from '@telepath/core';
import { describe, expect, it } from 'vitest';
import type { Example } from '../example.js';
import { generateBalancedProsqa } from './balanced.js';
import type { ProsqaGraph } from './graph.js';
import { loadProsqa } from './load.js';
import { toSymbolicProsqa } from './symbolic.js';
import { prosqaTask } from './task.js';

// Tom → wumpus → zumpus (target); Tom → rempus → lorpus; Sam → numpus (distractor).
const graph: ProsqaGraph = {
  symbols: ['Tom', 'wumpus', 'zumpus', 'rempus', 'lorpus', 'Sam', 'numpus'],
  edges: [
    [0, 1],
    [1, 2],
    [0, 3],
    [3, 4],
    [5, 6],
  ],
  root: 0,
  target: 2,
  negTarget: 6,
};
const example: Example = {
  id: 'toy/0',
  question: ' Tom wumpus. … ? Tom zumpus numpus',
  steps: [],
  answer: 'zumpus',
  meta: { graph },
};
const check = (text: string) => prosqaTask.checkReasoning!(example, text);

describe('symbolic ProsQA reasoning check', () => {
  it('checks path lines like the English steps', () => {
    expect(check('> Tom wumpus\n> wumpus zumpus')).toEqual({ ok: true, reason: 'shortest-path', detail: '2 steps' });
    expect(check('> Tom rempus\n> rempus zumpus').reason).toBe('hallucinated-edge');
    expect(check('> Tom wumpus\n> rempus lorpus').reason).toBe('broken-chain');
    expect(check('> Tom rempus\n> rempus lorpus').reason).toBe('wrong-target');
    expect(check('> Tom dragon').detail).toBe('step 1 "> Tom dragon": names dragon, not in the question');
    expect(check('> Tom wumpus zumpus').reason).toBe('unparsed');
  });

  it('checks frontier lines against the graph: complete, real edges, stopping at the option', () => {
    expect(check(': wumpus rempus\n: wumpus rempus zumpus lorpus')).toEqual({
      ok: true,
      reason: 'frontier',
      detail: '2 steps',
    });
    expect(check(': wumpus rempus\n: wumpus rempus zumpus')).toMatchObject({
      ok: false,
      reason: 'wrong-frontier',
      detail: 'step 2: incomplete, misses lorpus',
    });
    expect(check(': wumpus\n').reason).toBe('wrong-frontier');
    expect(check(': wumpus dragon').reason).toBe('hallucinated-node');
    expect(check(': wumpus rempus\n> wumpus zumpus').reason).toBe('unparsed');
  });

  it('checks expansion lines against the graph: the next node of the queue, exactly its children, stopping at the option', () => {
    expect(check('+ Tom wumpus rempus\n+ wumpus zumpus')).toEqual({ ok: true, reason: 'expansion', detail: '2 steps' });
    // children in another order: the queue follows the written order
    expect(check('+ Tom rempus wumpus\n+ rempus lorpus\n+ wumpus zumpus')).toEqual({
      ok: true,
      reason: 'expansion',
      detail: '3 steps',
    });
    const wrong = (text: string, detail: string) =>
      expect(check(text)).toEqual({ ok: false, reason: 'wrong-expansion', detail });
    wrong('+ Tom wumpus rempus\n+ rempus lorpus', 'step 2: expands rempus, but the next node to expand is wumpus');
    wrong('+ Tom wumpus\n+ wumpus zumpus', "step 1: misses Tom's child rempus");
    wrong('+ Tom wumpus rempus lorpus\n+ wumpus zumpus', 'step 1: lorpus is not a child of Tom');
    wrong('+ Tom wumpus rempus', 'step 1: the last step reaches no option');
    wrong('+ Tom wumpus rempus\n+ wumpus zumpus\n+ rempus lorpus', 'step 2: reaches an option but the trace goes on');
    expect(check('+ Tom wumpus dragon')).toEqual({
      ok: false,
      reason: 'hallucinated-node',
      detail: 'step 1: dragon is not in the question',
    });
    expect(check('+ Tom wumpus rempus\n> wumpus zumpus')).toEqual({
      ok: false,
      reason: 'unparsed',
      detail: 'step 2 "> wumpus zumpus": not "+ u c1 c2 …"',
    });
    expect(check('+\n+ wumpus zumpus').reason).toBe('unparsed');
    expect(check('+Tom wumpus').reason).toBe('unparsed');
  });

  it("checks a lookup probe's one line: the asked person and exactly its children, whatever the answer", () => {
    const lookup = { ...example, meta: { ...example.meta, reasoning: 'lookup' } };
    const checkLookup = (text: string) => prosqaTask.checkReasoning!(lookup, text);
    expect(checkLookup('+ Tom wumpus rempus')).toEqual({ ok: true, reason: 'lookup', detail: '1 steps' });
    expect(checkLookup('+ Tom rempus wumpus').reason).toBe('lookup');
    const wrong = (text: string, detail: string) =>
      expect(checkLookup(text)).toEqual({ ok: false, reason: 'wrong-lookup', detail });
    wrong('+ Tom wumpus', "misses Tom's child rempus");
    wrong('+ Tom wumpus rempus lorpus', 'lorpus is not a child of Tom');
    wrong('+ Tom wumpus wumpus rempus', 'lists a child twice');
    wrong('+ wumpus zumpus', 'expands wumpus, not the asked person Tom');
    wrong('+ Tom wumpus rempus\n+ wumpus zumpus', 'a lookup is one step, got 2');
    expect(checkLookup('+ Tom dragon').reason).toBe('hallucinated-node');
    expect(checkLookup('> Tom wumpus').reason).toBe('unparsed');
  });

  it("renders the lookup as the expansion trace's first line, sound on every real question and 1,000 balanced graphs", async () => {
    const examples = [
      ...(await loadProsqa('valid')).examples,
      ...(await loadProsqa('test')).examples,
      ...generateBalancedProsqa({ count: 1000, seed: 4 }),
    ];
    for (const layout of ['pairs', 'grouped'] as const) {
      const lookups = examples.map((ex) => toSymbolicProsqa(ex, 'lookup', layout));
      expect(
        lookups.every(
          (s, i) => s.steps.length === 1 && s.steps[0] === toSymbolicProsqa(examples[i], 'expansion', layout).steps[0],
        ),
      ).toBe(true);
      const verdicts = lookups.map((s) => prosqaTask.checkReasoning!(s, s.steps.join('\n')));
      expect(verdicts.filter((v) => v.reason !== 'lookup')).toEqual([]);
    }
  });

  it('checks a lookup-span line as the lookup, written as the question writes the edges', () => {
    const span = { ...example, meta: { ...example.meta, reasoning: 'lookup-span' } };
    const checkSpan = (text: string) => prosqaTask.checkReasoning!(span, text);
    expect(checkSpan('+ Tom: wumpus rempus.')).toEqual({ ok: true, reason: 'lookup', detail: '1 steps' });
    expect(checkSpan('+ Tom: wumpus.')).toEqual({
      ok: false,
      reason: 'wrong-lookup',
      detail: "misses Tom's child rempus",
    });
    expect(checkSpan('+ Tom: wumpus dragon.').reason).toBe('hallucinated-node');
    expect(checkSpan('+ Tom wumpus rempus')).toMatchObject({ ok: false, reason: 'unparsed' });
    expect(checkSpan('+ Tom: wumpus rempus')).toMatchObject({ ok: false, reason: 'unparsed' });
  });

  it("writes the lookup-span line as a token-for-token copy of the grouped question's span, sound on every real question", async () => {
    const examples = [...(await loadProsqa('valid')).examples, ...(await loadProsqa('test')).examples];
    const spans = examples.map((ex) => toSymbolicProsqa(ex, 'lookup-span', 'grouped'));
    const tok = Tokenizer.build(exampleTexts(spans));
    for (const s of spans) {
      expect(prosqaTask.checkReasoning!(s, s.steps[0]).reason).toBe('lookup');
      const question = `,${tok.encode(s.question).join(',')},`;
      const line = tok.encode(s.steps[0]); // "+", " root", ":", " c1", …, "."
      expect(tok.tokens[line[0]]).toBe('+');
      expect(question).toContain(`,${line.slice(1).join(',')},`);
    }
  });

  it("writes the echo trace as the grouped question's spans copied in order, sound on every real question and 1,000 balanced graphs", async () => {
    const examples = [
      ...(await loadProsqa('valid')).examples,
      ...(await loadProsqa('test')).examples,
      ...generateBalancedProsqa({ count: 1000, seed: 4 }),
    ];
    const echoes = examples.map((ex) => toSymbolicProsqa(ex, 'echo', 'grouped'));
    const tok = Tokenizer.build(exampleTexts(echoes));
    for (const s of echoes) {
      expect(prosqaTask.checkReasoning!(s, s.steps.join('\n'))).toEqual({
        ok: true,
        reason: 'echo',
        detail: `${s.steps.length} steps`,
      });
      // the lines without their marks are the question's edge text, token for token
      const edgeTokens = tok.encode(s.question.slice(0, s.question.indexOf(' ?')));
      const lineTokens = s.steps.flatMap((line) => {
        const ids = tok.encode(line);
        expect(tok.tokens[ids[0]]).toBe('+');
        return ids.slice(1);
      });
      expect(lineTokens).toEqual(edgeTokens);
    }
  });

  it('checks an echo trace line by line against the question: order, every group, nothing more', async () => {
    const [first] = (await loadProsqa('test')).examples;
    const echo = toSymbolicProsqa(first, 'echo', 'grouped');
    const lines = echo.steps;
    expect(lines.length).toBeGreaterThan(2);
    const checkEcho = (ls: string[]) => prosqaTask.checkReasoning!(echo, ls.join('\n'));
    expect(checkEcho(lines).reason).toBe('echo');
    expect(checkEcho([lines[1], lines[0], ...lines.slice(2)])).toEqual({
      ok: false,
      reason: 'wrong-echo',
      detail: `step 1: "${lines[1]}", the question has "${lines[0]}"`,
    });
    expect(checkEcho(lines.slice(0, -1))).toMatchObject({
      reason: 'wrong-echo',
      detail: expect.stringMatching(/missing/),
    });
    expect(checkEcho([...lines, lines[0]])).toMatchObject({
      reason: 'wrong-echo',
      detail: `${lines.length + 1} steps, the question has ${lines.length} groups`,
    });
    expect(checkEcho([lines[0].replace(/ ([a-z]+)\.$/, ' dragon.')]).reason).toBe('hallucinated-node');
    expect(checkEcho([lines[0].slice(0, -1)]).reason).toBe('unparsed');
  });

  it('finds the rendered expansion trace sound on every real question (300 valid + 500 test) and 1,000 balanced graphs', async () => {
    const examples = [
      ...(await loadProsqa('valid')).examples,
      ...(await loadProsqa('test')).examples,
      ...generateBalancedProsqa({ count: 1000, seed: 4 }),
    ];
    expect(examples.length).toBe(1800);
    const verdicts = examples
      .map((ex) => toSymbolicProsqa(ex, 'expansion'))
      .map((s) => prosqaTask.checkReasoning!(s, s.steps.join('\n')));
    expect(verdicts.filter((v) => v.reason !== 'expansion')).toEqual([]);
  });

  it("finds every real test question's symbolic path a shortest path and its frontier trace sound", async () => {
    const { examples } = await loadProsqa('test');
    for (const reasoning of ['path', 'frontier'] as const) {
      const reasons = new Set(
        examples
          .map((ex) => toSymbolicProsqa(ex, reasoning))
          .map((s) => prosqaTask.checkReasoning!(s, s.steps.join('\n')).reason),
      );
      expect([...reasons]).toEqual([reasoning === 'path' ? 'shortest-path' : 'frontier']);
    }
    const sym = toSymbolicProsqa(examples[0]);
    expect(prosqaTask.isCorrect(sym, `${sym.steps.join('\n')}\n### ${sym.answer}`)).toBe(true);
    expect(prosqaTask.isCorrect(sym, '### hilpus')).toBe(false);
  });
});
