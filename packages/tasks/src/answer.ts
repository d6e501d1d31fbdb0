/**
 * Where the answer sits in a model's output: after the last `###` separator (core's
 * SPECIAL_TOKENS.sep), up to the end of the line or an end-of-sequence token. A bare answer
 * (no separator) is taken whole. The written reasoning is the text before the first separator.
 */
import { SPECIAL_TOKENS } from '@telepath/core';

export function answerText(output: string): string {
  const i = output.lastIndexOf(SPECIAL_TOKENS.sep);
  let s = i < 0 ? output : output.slice(i + SPECIAL_TOKENS.sep.length);
  const eos = s.indexOf(SPECIAL_TOKENS.eos);
  if (eos >= 0) s = s.slice(0, eos);
  const nl = s.trim().indexOf('\n');
  s = s.trim();
  return nl >= 0 ? s.slice(0, nl).trim() : s;
}

/** The written reasoning of a model's output: the text before the first `###`, end-of-sequence tokens dropped (the whole output when it has no separator). */
export function reasoningText(output: string): string {
  return output.split(SPECIAL_TOKENS.sep)[0].replaceAll(SPECIAL_TOKENS.eos, '');
}
