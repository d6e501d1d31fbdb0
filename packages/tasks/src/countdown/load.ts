/**
 * Loader for the common public Countdown test format: one JSON object per line,
 * `{"input": "a,b,c", "output": "target"}` (issue 3). Examples carry no reference solution
 * (steps = [], answer = "") unless `solve` is set, in which case the exhaustive solver fills them
 * and an unsolvable instance is a bad record. The file's sha256 is reported.
 */
import { promises as fs } from 'node:fs';
import { DataError, parseOrSkip, quotePrefix, type SkippedRecord } from '../data-error.js';
import type { Example } from '../example.js';
import { sha256Hex } from '../files.js';
import { numberedLines, type LoadOptions } from '../load-result.js';
import { countdownQuestion } from './format.js';
import type { CountdownMeta } from './generate.js';
import type { CountdownRules } from './rules.js';
import { solveCountdown } from './solver.js';

export interface CountdownLoadOptions extends LoadOptions {
  rules?: CountdownRules;
  /** Fill steps/answer with the solver's solution; unsolvable instances become bad records. */
  solve?: boolean;
  idPrefix?: string;
}

export interface CountdownLoadResult {
  examples: Example[];
  file: { path: string; sha256: string; bytes: number };
  skipped: SkippedRecord[];
}

/** Largest magnitude a Countdown number or target may have: far above any real instance, far below float rounding. */
export const COUNTDOWN_MAX_VALUE = 1_000_000_000;

function parseRecord(text: string, file: string, line: number): { nums: number[]; target: number } {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    throw new DataError(file, line, null, `invalid JSON: ${(e as Error).message}`);
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v))
    throw new DataError(file, line, null, 'record is not a JSON object');
  const r = v as Record<string, unknown>;
  if (typeof r.input !== 'string')
    throw new DataError(file, line, 'input', `missing or not a string (got ${quotePrefix(r.input)})`);
  const parts = r.input.split(',').map((s) => s.trim());
  if (parts.some((p) => !/^\d+$/.test(p)))
    throw new DataError(
      file,
      line,
      'input',
      `expected comma-separated non-negative integers, got ${quotePrefix(r.input)}`,
    );
  const nums = parts.map(Number);
  if (nums.length < 2 || nums.length > 8)
    throw new DataError(file, line, 'input', `expected 2..8 numbers, got ${nums.length}`);
  const tooLarge = parts.find((_, i) => nums[i] > COUNTDOWN_MAX_VALUE); // a 10 MB digit string is Infinity here
  if (tooLarge !== undefined)
    throw new DataError(
      file,
      line,
      'input',
      `a number must be at most ${COUNTDOWN_MAX_VALUE}, got ${quotePrefix(tooLarge)}`,
    );
  const out = typeof r.output === 'number' ? String(r.output) : r.output;
  if (typeof out !== 'string' || !/^\s*-?\d+\s*$/.test(out))
    throw new DataError(file, line, 'output', `expected an integer target, got ${quotePrefix(r.output)}`);
  const target = Number(out);
  if (!Number.isFinite(target) || Math.abs(target) > COUNTDOWN_MAX_VALUE)
    throw new DataError(
      file,
      line,
      'output',
      `the target must be an integer of magnitude at most ${COUNTDOWN_MAX_VALUE}, got ${quotePrefix(r.output)}`,
    );
  return { nums, target };
}

export async function loadCountdownJsonl(path: string, o: CountdownLoadOptions = {}): Promise<CountdownLoadResult> {
  let buf: Buffer;
  try {
    buf = await fs.readFile(path);
  } catch (e) {
    throw new Error(
      `Cannot read Countdown file ${path}: ${(e as Error).message}. Countdown data is generated (datasets/README.md, section "Countdown").`,
    );
  }
  const rules = o.rules ?? 'sos';
  const skipped: SkippedRecord[] = [];
  const examples: Example[] = [];
  for (const { line, text } of numberedLines(buf.toString('utf8'))) {
    const ex = parseOrSkip(
      () => {
        if (text.trim() === '') throw new DataError(path, line, null, 'blank line');
        const { nums, target } = parseRecord(text, path, line);
        const meta: CountdownMeta = { nums, target, rules };
        const example: Example = {
          id: `${o.idPrefix ?? 'countdown/file'}/${line - 1}`,
          question: countdownQuestion(nums, target),
          steps: [],
          answer: '',
          meta,
        };
        if (o.solve) {
          const sol = solveCountdown(nums, target, rules);
          if (!sol)
            throw new DataError(path, line, 'output', `no ${rules} solution reaches ${target} from ${nums.join(', ')}`);
          example.steps = sol.steps;
          example.answer = sol.expression;
        }
        return example;
      },
      skipped,
      o,
    );
    if (ex) examples.push(ex);
  }
  return { examples, file: { path, sha256: sha256Hex(buf), bytes: buf.length }, skipped };
}

/** The public one-object-per-line format for a set of Countdown examples. */
export function toCountdownJsonl(examples: readonly Example[]): string {
  return (
    examples
      .map((e) => {
        const m = e.meta as CountdownMeta;
        return JSON.stringify({ input: m.nums.join(','), output: String(m.target) });
      })
      .join('\n') + (examples.length ? '\n' : '')
  );
}
