/**
 * Arithmetic expressions of Countdown answers: numbers, + − × ÷ (also written - * / x), and
 * parentheses; no unary minus (every leaf must be one of the given numbers). Parsed into a tree
 * so the verifier can check every intermediate under the rules.
 */
import type { Op } from './rules.js';

export type Expr = { kind: 'num'; text: string } | { kind: 'op'; op: Op; left: Expr; right: Expr };

type Token = { t: 'num'; text: string } | { t: 'op'; op: Op } | { t: '(' } | { t: ')' };

const OPS: Record<string, Op> = {
  '+': '+',
  '-': '-',
  '\u2212': '-',
  '*': '*',
  '\u00d7': '*',
  x: '*',
  X: '*',
  '/': '/',
  '\u00f7': '/',
};

export class ExprSyntaxError extends Error {}

function tokenize(s: string): Token[] {
  const out: Token[] = [];
  for (let i = 0; i < s.length;) {
    const c = s[i];
    if (/\s/.test(c)) {
      i++;
    } else if (/[0-9.]/.test(c)) {
      const m = /^[0-9]*\.?[0-9]+|^[0-9]+\.?/.exec(s.slice(i));
      if (!m) throw new ExprSyntaxError(`a "." without digits at ${i}`);
      out.push({ t: 'num', text: m[0] });
      i += m[0].length;
    } else if (c in OPS) {
      out.push({ t: 'op', op: OPS[c] });
      i++;
    } else if (c === '(' || c === ')') {
      out.push({ t: c });
      i++;
    } else {
      throw new ExprSyntaxError(`unexpected character ${JSON.stringify(c)} at ${i}`);
    }
  }
  return out;
}

const PREC: Record<Op, number> = { '+': 1, '-': 1, '*': 2, '/': 2 };

/** Parses an expression (left-associative, × ÷ before + −). Throws ExprSyntaxError. */
export function parseExpr(text: string): Expr {
  const toks = tokenize(text);
  let pos = 0;
  const primary = (): Expr => {
    const tok = toks[pos++];
    if (!tok) throw new ExprSyntaxError('unexpected end of expression');
    if (tok.t === 'num') return { kind: 'num', text: tok.text };
    if (tok.t === '(') {
      const e = binary(0);
      if (toks[pos++]?.t !== ')') throw new ExprSyntaxError('missing ")"');
      return e;
    }
    throw new ExprSyntaxError(`unexpected ${tok.t === 'op' ? `operator "${tok.op}"` : '")"'} at token ${pos}`);
  };
  const binary = (minPrec: number): Expr => {
    let left = primary();
    for (;;) {
      const tok = toks[pos];
      if (!tok || tok.t !== 'op' || PREC[tok.op] < minPrec) return left;
      pos++;
      const right = binary(PREC[tok.op] + 1);
      left = { kind: 'op', op: tok.op, left, right };
    }
  };
  if (toks.length === 0) throw new ExprSyntaxError('empty expression');
  const e = binary(0);
  if (pos !== toks.length) throw new ExprSyntaxError(`unexpected token after position ${pos}`);
  return e;
}
