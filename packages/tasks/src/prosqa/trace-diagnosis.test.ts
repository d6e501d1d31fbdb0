import { beforeAll, describe, expect, it } from 'vitest';
import type { Example } from '../example.js';
import { loadProsqa } from './load.js';
import { toSymbolicProsqa } from './symbolic.js';
import { diagnoseTrace, summarizeDiagnoses } from './trace-diagnosis.js';

let real: Example[];
beforeAll(async () => {
  real = (await loadProsqa('test')).examples;
});

describe('diagnosing a written breadth-first ProsQA trace', () => {
  it('finds the right trace in the rendered question alone: every real test trace, headed and grouped, is itself', () => {
    for (const ex of real) {
      for (const layout of ['headed', 'grouped'] as const) {
        for (const reasoning of [
          'expansion',
          'expansion-queue',
          'expansion-queue-done',
          'expansion-queue-done-cut',
        ] as const) {
          const sym = toSymbolicProsqa(ex, reasoning, layout);
          const d = diagnoseTrace(sym.question, sym.answer, sym.steps.join('\n'), reasoning, layout === 'headed');
          const withQueue = reasoning === 'expansion' ? 0 : sym.steps.length - 1;
          const withDone = reasoning.startsWith('expansion-queue-done') ? withQueue : 0;
          // the cut form's last line is no whole group when the option is not its node's last child
          const done = toSymbolicProsqa(ex, 'expansion-queue-done', layout).steps;
          const cutShort = reasoning === 'expansion-queue-done-cut' && sym.steps.at(-1) !== done.at(-1) ? 1 : 0;
          expect(d).toEqual({
            lines: sym.steps.length,
            groupCopies: sym.steps.length - cutShort,
            firstDifference: null,
            wentOn: false,
            followsQueue: [withQueue, withQueue],
            updatesQueue: [withQueue, withQueue],
            updatesDone: [withDone, withDone],
            firstProblem: null,
          });
        }
      }
    }
  });

  it('tells where a trace leaves the right one, a trace that goes on, and bookkeeping right after a slip', () => {
    const sym = toSymbolicProsqa(real[0], 'expansion-queue', 'headed');
    const right = sym.steps;
    const diagnose = (lines: string[]) =>
      diagnoseTrace(sym.question, sym.answer, lines.join('\n'), 'expansion-queue', true);
    expect(diagnose([...right, right[right.length - 1]])).toMatchObject({
      firstDifference: right.length + 1,
      wentOn: true,
    });
    expect(diagnose(right.slice(0, 3))).toMatchObject({ firstDifference: 4, wentOn: false });
    // the second line's queue with its first two nodes swapped: that line's update is wrong, and the
    // third line, which expands the first node of the queue as written, follows it
    const [expanded, queue] = right[1].split(': ');
    const [a, b, ...rest] = queue.split(' ');
    const swapped = `${expanded}: ${[b, a, ...rest].join(' ')}`;
    const third = right[2].replace(/^\+ [A-Z][a-z]+/, `+ ${b[0].toUpperCase()}${b.slice(1)}`).split(':')[0];
    const d = diagnose([right[0], swapped, third]);
    expect(d.firstDifference).toBe(2);
    expect(d.updatesQueue).toEqual([1, 2]);
    expect(d.followsQueue).toEqual([2, 2]);
    expect(() => diagnoseTrace(sym.question, 'notanoption', '', 'expansion-queue', true)).toThrow(
      /not one of the options/,
    );
  });

  it("judges a done list against the nodes the trace's own lines expanded", () => {
    const sym = toSymbolicProsqa(real[0], 'expansion-queue-done', 'headed');
    const right = sym.steps;
    const diagnose = (lines: string[]) =>
      diagnoseTrace(sym.question, sym.answer, lines.join('\n'), 'expansion-queue-done', true);
    // the second line's done list without its last node: that list is wrong, the others right
    const dropped = right.map((l, k) => (k === 1 ? l.replace(/ [a-z]+$/, '') : l));
    expect(diagnose(dropped).updatesDone).toEqual([right.length - 2, right.length - 1]);
    expect(diagnose(dropped).firstDifference).toBe(2);
    expect(diagnose(dropped).firstProblem).toBe('done');
  });

  it("names a queue trace's first problem: a new child dropped, a node added, a line that does not parse", () => {
    const sym = toSymbolicProsqa(real[0], 'expansion-queue', 'headed');
    const right = sym.steps;
    const diagnose = (lines: string[]) =>
      diagnoseTrace(sym.question, sym.answer, lines.join('\n'), 'expansion-queue', true).firstProblem;
    expect(diagnose(right)).toBeNull();
    // the first line's queue without its last node (a new child of the root)
    expect(diagnose(right.map((l, k) => (k === 0 ? l.replace(/ [a-z]+$/, '') : l)))).toBe('queue-misses');
    // a name the question does not have, added to the first queue: a node that should not be there
    expect(diagnose(right.map((l, k) => (k === 0 ? `${l} zzzpus` : l)))).toBe('queue-adds');
    // right lines, then one cut short: nothing wrong before it, so 'unparsed'; a wrong line before it wins
    expect(diagnose([...right.slice(0, 2), '+'])).toBe('unparsed');
    expect(diagnose([right[0].replace(/ [a-z]+$/, ''), right[1], '+'])).toBe('queue-misses');
    expect(diagnose(right.slice(0, 2))).toBe('stops');
    expect(diagnose([...right, right[right.length - 1]])).toBe('goes-on');
  });

  it('pools traces by where they first leave the right one', () => {
    const sym = toSymbolicProsqa(real[1], 'expansion', 'headed');
    const d = (lines: string[]) => diagnoseTrace(sym.question, sym.answer, lines.join('\n'), 'expansion', true);
    const s = summarizeDiagnoses([d(sym.steps), d(sym.steps.slice(1)), d([])]);
    expect(s.traces).toBe(3);
    expect(s.firstDifference).toMatchObject({ none: 1, '1': 2 });
    expect(s.updatesQueue).toEqual([0, 0]);
  });
});
