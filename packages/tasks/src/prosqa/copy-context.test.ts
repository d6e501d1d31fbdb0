import { describe, expect, it } from 'vitest';
import type { Example } from '../example.js';
import { copyContext, copyContextRate, symbolicTokens } from './copy-context.js';

// Sally → a, b; a → c; the question asks "? Sally a c".
const question = ' Sally: a b. a: c. ? Sally a c';

describe('copy context of a written line', () => {
  it('splits names and marks', () => {
    expect(symbolicTokens('+ Sally: a b.')).toEqual(['+', 'Sally', ':', 'a', 'b', '.']);
  });

  it('counts the tokens the n before them fix in the question', () => {
    const q = symbolicTokens(question);
    const span = ['Sally', ':', 'a', 'b', '.'];
    expect(copyContext(q, span, 1)).toEqual({ fixed: 1, total: 4 }); // only "b" → "."
    expect(copyContext(q, span, 2)).toEqual({ fixed: 3, total: 4 }); // "Sally :" → a, ": a" → b, "a b" → .
    const bare = ['Sally', 'a', 'b'];
    expect(copyContext(q, bare, 2)).toEqual({ fixed: 0, total: 2 }); // "Sally a" stands only in "? Sally a c"
  });

  it('pools the lines of many examples, without their mark', () => {
    const ex = (line: string): Example => ({ id: 'x', question, steps: [line], answer: 'c' });
    expect(copyContextRate([ex('+ Sally: a b.'), ex('+ Sally a b')], 2)).toBe(3 / 6);
  });
});
