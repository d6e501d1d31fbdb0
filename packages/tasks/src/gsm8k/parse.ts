/**
 * GSM8K record parsing (docs/datasets.md §2–§3).
 * - Original JSONL: `{question, answer}`; steps are the calculator annotations `<<48/2=24>>`
 *   (written `48/2=24`, the equation-only chain of GSM8k-Aug); the answer follows `####`.
 * - iCoT text: `question||<<e1>> <<e2>> ... #### answer`; question = text before `||`, steps =
 *   the space-separated `<<…>>` between `||` and `####`, answer = text after the last `####`;
 *   an empty chain gives `steps = []` (docs/datasets.md §3).
 * `formatIcotLine` rebuilds an iCoT line from an original record with the rule of docs/datasets.md §3
 * (`question + "||" + annotations.join(" ") + " #### " + answer`), byte-exact for all 500 valid
 * and 1,319 test lines.
 */
import { DataError } from '../data-error.js';

export interface Gsm8kParsed {
  question: string;
  /** Annotation bodies without the `<<` `>>` brackets, in order. */
  steps: string[];
  /** The text after `####`, trimmed, as written (may hold thousands commas). */
  answer: string;
}

/** Where a record came from, for error messages. */
export interface RecordSource {
  file: string;
  line: number;
}

const ANNOTATION = /<<([^<>]*)>>/g;
/** docs/datasets.md §2: the annotation alphabet is exactly 0-9 + - * / ( ) . = and every one has "=". */
const ANNOTATION_BODY = /^[0-9+\-*/().]+(?:=[0-9+\-*/().]+)+$/;

/** The bodies of the `<<…>>` annotations of a GSM8K answer text, checked for balance and form. */
export function extractAnnotations(text: string, src: RecordSource, field = 'answer'): string[] {
  const opens = text.split('<<').length - 1;
  const closes = text.split('>>').length - 1;
  const bodies = [...text.matchAll(ANNOTATION)].map((m) => m[1]);
  if (opens !== bodies.length || closes !== bodies.length) {
    throw new DataError(
      src.file,
      src.line,
      field,
      `unbalanced calculator annotation: ${opens} "<<", ${closes} ">>", ${bodies.length} well-formed`,
    );
  }
  for (const b of bodies) checkAnnotation(b, src, field);
  return bodies;
}

function checkAnnotation(body: string, src: RecordSource, field: string): void {
  if (!ANNOTATION_BODY.test(body)) {
    throw new DataError(
      src.file,
      src.line,
      field,
      `calculator annotation <<${body}>> is not "expression=result" over 0-9 + - * / ( ) .`,
    );
  }
}

function finalAnswer(afterHashes: string, src: RecordSource, field: string): string {
  const answer = afterHashes.trim();
  if (answer === '') throw new DataError(src.file, src.line, field, 'empty final answer after "####"');
  return answer;
}

/** One parsed line of GSM8K's original JSONL. */
export function parseGsm8kJson(value: unknown, src: RecordSource): Gsm8kParsed {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new DataError(src.file, src.line, null, 'record is not a JSON object');
  }
  const r = value as Record<string, unknown>;
  for (const k of ['question', 'answer']) {
    if (typeof r[k] !== 'string')
      throw new DataError(src.file, src.line, k, `missing or not a string (got ${typeof r[k]})`);
  }
  const question = r.question as string;
  const answerText = r.answer as string;
  const parts = answerText.split('####');
  if (parts.length !== 2) {
    throw new DataError(src.file, src.line, 'answer', `expected exactly one "####", found ${parts.length - 1}`);
  }
  return { question, steps: extractAnnotations(parts[0], src), answer: finalAnswer(parts[1], src, 'answer') };
}

/** Parses one JSONL line (JSON syntax errors become DataErrors naming the line). */
export function parseGsm8kLine(line: string, src: RecordSource): Gsm8kParsed {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (e) {
    throw new DataError(src.file, src.line, null, `invalid JSON: ${(e as Error).message}`);
  }
  return parseGsm8kJson(value, src);
}

/** One line of the iCoT text format. */
export function parseIcotLine(line: string, src: RecordSource): Gsm8kParsed {
  const bar = line.indexOf('||');
  if (bar < 0) throw new DataError(src.file, src.line, 'question', 'no "||" between question and chain');
  const question = line.slice(0, bar);
  if (question.trim() === '') throw new DataError(src.file, src.line, 'question', 'empty question');
  const rest = line.slice(bar + 2);
  const hashes = rest.lastIndexOf('####');
  if (hashes < 0) throw new DataError(src.file, src.line, 'answer', 'no "####" before the answer');
  const chain = rest.slice(0, hashes).trim();
  const steps = chain === '' ? [] : chain.split(' ');
  const bodies = steps.map((s, i) => {
    const m = /^<<([^<>]*)>>$/.exec(s);
    if (!m)
      throw new DataError(
        src.file,
        src.line,
        `steps[${i}]`,
        `expected one "<<expression=result>>", got ${JSON.stringify(s)}`,
      );
    checkAnnotation(m[1], src, `steps[${i}]`);
    return m[1];
  });
  return { question, steps: bodies, answer: finalAnswer(rest.slice(hashes + 4), src, 'answer') };
}

/** The iCoT line for a parsed record (docs/datasets.md §3's rule). */
export function formatIcotLine(r: Gsm8kParsed): string {
  return `${r.question}||${r.steps.map((s) => `<<${s}>>`).join(' ')} #### ${r.answer}`;
}
