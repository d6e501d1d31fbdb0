/**
 * How much of a written line a copy from the question can fix token by token, as an induction head
 * copies: for each token of the line after its first, whether the n tokens before it (in the line)
 * stand in the question followed by one token only, the right one. Tokens are the symbolic
 * rendering's names and its punctuation (":" "." "?"), each a token of core's tokenizer. The
 * line's mark ("+") is left out: it never stands in the question.
 */
import type { Example } from '../example.js';

/** A symbolic text's tokens: names and the marks ":" "." "?" "+" as words of their own. */
export function symbolicTokens(text: string): string[] {
  return text
    .replace(/([:.?+])/g, ' $1 ')
    .trim()
    .split(/\s+/);
}

/** Tokens of the line fixed by the n before them, and tokens scored (all but the line's first). */
export function copyContext(
  question: readonly string[],
  line: readonly string[],
  n: number,
): { fixed: number; total: number } {
  let fixed = 0;
  for (let j = 0; j + 1 < line.length; j++) {
    const context = line.slice(Math.max(0, j - n + 1), j + 1);
    const next = new Set<string>();
    for (let i = 0; i + context.length < question.length; i++)
      if (context.every((t, k) => question[i + k] === t)) next.add(question[i + context.length]);
    if (next.size === 1 && next.has(line[j + 1])) fixed++;
  }
  return { fixed, total: Math.max(0, line.length - 1) };
}

/** Over examples with one written line each: the share of its tokens an n-token copy fixes. */
export function copyContextRate(examples: readonly Example[], n: number): number {
  let fixed = 0;
  let total = 0;
  for (const ex of examples) {
    const line = symbolicTokens(ex.steps[0] ?? '').filter((t) => t !== '+');
    const c = copyContext(symbolicTokens(ex.question), line, n);
    fixed += c.fixed;
    total += c.total;
  }
  return total === 0 ? 0 : fixed / total;
}
