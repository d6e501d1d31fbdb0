/**
 * Out-of-distribution GSM test sets, converted as CoLaR does (docs/datasets.md §6–§7):
 * - GSM-Hard: question = `input`, steps = [`code`] (the PAL program), answer = String(target).
 * - SVAMP: question = Body.strip(". ") + ". " + Question.strip(), steps = [Equation],
 *   answer = String(Answer). Python's `strip(". ")` removes any run of "." and " " at both ends.
 * Answers are written in canonical decimal form ("51", "-9867630", "0.5"); numbers.ts compares them.
 */
import { DataError, parseOrSkip, type SkippedRecord } from '../data-error.js';
import type { Example } from '../example.js';
import { readDatasetFile } from '../files.js';
import { arrayElementLines } from '../json-lines.js';
import { numberedLines, type LoadOptions, type LoadResult } from '../load-result.js';
import { canonicalNumber } from '../numbers.js';

function field<T>(
  r: Record<string, unknown>,
  k: string,
  type: 'string' | 'number',
  file: string,
  line: number,
  prefix = '',
): T {
  const v = r[k];
  if (typeof v !== type || (type === 'number' && !Number.isFinite(v as number))) {
    throw new DataError(
      file,
      line,
      prefix + k,
      `missing or not a ${type === 'number' ? 'finite number' : type} (got ${JSON.stringify(v)?.slice(0, 40)})`,
    );
  }
  return v as T;
}

function numberAnswer(x: number, file: string, line: number, name: string): string {
  const c = canonicalNumber(String(x));
  if (c === null) throw new DataError(file, line, name, `cannot write ${x} as a decimal answer`);
  return c;
}

/** Python's str.strip(chars). */
export function stripChars(s: string, chars: string): string {
  let a = 0;
  let b = s.length;
  while (a < b && chars.includes(s[a])) a++;
  while (b > a && chars.includes(s[b - 1])) b--;
  return s.slice(a, b);
}

export async function loadGsmHard(o: LoadOptions = {}): Promise<LoadResult> {
  const { text, check } = await readDatasetFile('gsm-hard/test', o);
  const file = check.path;
  const skipped: SkippedRecord[] = [];
  const examples: Example[] = [];
  for (const { line, text: t } of numberedLines(text)) {
    const ex = parseOrSkip(
      () => {
        let r: unknown;
        try {
          r = JSON.parse(t);
        } catch (e) {
          throw new DataError(file, line, null, `invalid JSON: ${(e as Error).message}`);
        }
        if (typeof r !== 'object' || r === null || Array.isArray(r))
          throw new DataError(file, line, null, 'record is not a JSON object');
        const rec = r as Record<string, unknown>;
        const question = field<string>(rec, 'input', 'string', file, line);
        const code = field<string>(rec, 'code', 'string', file, line);
        const target = field<number>(rec, 'target', 'number', file, line);
        return {
          id: `gsm-hard/test/${line - 1}`,
          question,
          steps: [code],
          answer: numberAnswer(target, file, line, 'target'),
        };
      },
      skipped,
      o,
    );
    if (ex) examples.push(ex);
  }
  return { examples, files: [check], skipped };
}

export async function loadSvamp(o: LoadOptions = {}): Promise<LoadResult> {
  const { text, check } = await readDatasetFile('svamp/test', o);
  const file = check.path;
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (e) {
    throw new DataError(file, null, null, `invalid JSON: ${(e as Error).message}`);
  }
  if (!Array.isArray(data)) throw new DataError(file, 1, null, 'expected a JSON array of records');
  const lines = arrayElementLines(text);
  const skipped: SkippedRecord[] = [];
  const examples: Example[] = [];
  data.forEach((r, i) => {
    const line = lines[i] ?? 1;
    const ex = parseOrSkip(
      () => {
        if (typeof r !== 'object' || r === null || Array.isArray(r))
          throw new DataError(file, line, `[${i}]`, 'record is not a JSON object');
        const rec = r as Record<string, unknown>;
        const p = `[${i}].`;
        const body = field<string>(rec, 'Body', 'string', file, line, p);
        const q = field<string>(rec, 'Question', 'string', file, line, p);
        const equation = field<string>(rec, 'Equation', 'string', file, line, p);
        const answer = field<number>(rec, 'Answer', 'number', file, line, p);
        const svampId = field<string>(rec, 'ID', 'string', file, line, p);
        const type = field<string>(rec, 'Type', 'string', file, line, p);
        return {
          id: `svamp/test/${i}`,
          question: `${stripChars(body, '. ')}. ${q.trim()}`,
          steps: [equation],
          answer: numberAnswer(answer, file, line, `${p}Answer`),
          meta: { svampId, type },
        };
      },
      skipped,
      o,
    );
    if (ex) examples.push(ex);
  });
  return { examples, files: [check], skipped };
}
