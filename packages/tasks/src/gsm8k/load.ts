/**
 * GSM8K loaders and Telepath's splits (docs/datasets.md §2–§3; issue 3 "GSM8K"):
 * - train = GSM8K train minus the 500 questions of GSM8k-Aug valid (matched on the exact question
 *   string; all 500 must match) = 6,973 problems ("gsm8k-eq", the stand-in for GSM8k-Aug train).
 *   The 89 of them without any annotation are kept with `steps = []` (valid/test hold such lines too).
 * - valid = GSM8k-Aug valid (500, iCoT text); test = GSM8K test (1,319).
 * Ids are `<dataset>/<split>/<0-based line index in the source file>`.
 */
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { DataError, parseOrSkip, type SkippedRecord } from '../data-error.js';
import type { Example } from '../example.js';
import { readDatasetFile } from '../files.js';
import { numberedLines, type LoadOptions, type LoadResult } from '../load-result.js';
import { parseGsm8kLine, parseIcotLine, type Gsm8kParsed } from './parse.js';

export type Gsm8kSplit = 'train' | 'valid' | 'test';

function toExample(id: string, p: Gsm8kParsed): Example {
  return { id, question: p.question, steps: p.steps, answer: p.answer };
}

function parseLines(
  text: string,
  file: string,
  idPrefix: string,
  parse: (line: string, src: { file: string; line: number }) => Gsm8kParsed,
  skipped: SkippedRecord[],
  o: LoadOptions,
): Example[] {
  const out: Example[] = [];
  for (const { line, text: t } of numberedLines(text)) {
    const ex = parseOrSkip(
      () => {
        if (t.trim() === '') throw new DataError(file, line, null, 'blank line');
        return toExample(`${idPrefix}/${line - 1}`, parse(t, { file, line }));
      },
      skipped,
      o,
    );
    if (ex) out.push(ex);
  }
  return out;
}

/**
 * Any file in GSM8K's JSONL format ({"question", "answer"} with `<<…>>` annotations and `####`),
 * e.g. to evaluate a trained arm on another GSM8K-style set. Not sha256-checked: it is not a
 * shipped file. Ids are `file:<name>/<line index>`.
 */
export async function loadGsm8kJsonlFile(path: string, o: LoadOptions = {}): Promise<LoadResult> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (e) {
    throw new Error(`cannot read ${path}: ${(e as Error).message}`);
  }
  const skipped: SkippedRecord[] = [];
  const examples = parseLines(text, path, `file:${basename(path)}`, parseGsm8kLine, skipped, o);
  return { examples, files: [], skipped };
}

/** GSM8K's original JSONL (train 7,473 or test 1,319). */
export async function loadGsm8kOriginal(split: 'train' | 'test', o: LoadOptions = {}): Promise<LoadResult> {
  const { text, check } = await readDatasetFile(split === 'train' ? 'gsm8k/train' : 'gsm8k/test', o);
  const skipped: SkippedRecord[] = [];
  const examples = parseLines(text, check.path, `gsm8k/${split}`, parseGsm8kLine, skipped, o);
  return { examples, files: [check], skipped };
}

/** GSM8k-Aug in the iCoT text format (valid 500 or test 1,319). */
export async function loadGsm8kAug(split: 'valid' | 'test', o: LoadOptions = {}): Promise<LoadResult> {
  const { text, check } = await readDatasetFile(split === 'valid' ? 'gsm8k-aug/valid' : 'gsm8k-aug/test', o);
  const skipped: SkippedRecord[] = [];
  const examples = parseLines(text, check.path, `gsm8k-aug/${split}`, parseIcotLine, skipped, o);
  return { examples, files: [check], skipped };
}

/**
 * GSM8K train without the questions of `exclude` (matched on the exact string). Throws when an
 * excluded question is not in train, because then the split would silently leak.
 */
export function excludeQuestions(train: Example[], exclude: Example[], what: string): Example[] {
  const drop = new Set(exclude.map((e) => e.question));
  const seen = new Set<string>();
  const kept = train.filter((e) => {
    if (!drop.has(e.question)) return true;
    seen.add(e.question);
    return false;
  });
  const missing = [...drop].filter((q) => !seen.has(q));
  if (missing.length > 0) {
    throw new Error(
      `${missing.length} question(s) of ${what} are not in GSM8K train, e.g. ${JSON.stringify(missing[0].slice(0, 80))}`,
    );
  }
  return kept;
}

/** One of Telepath's GSM8K splits (see the file header). */
export async function loadGsm8k(split: Gsm8kSplit, o: LoadOptions = {}): Promise<LoadResult> {
  if (split === 'valid') return loadGsm8kAug('valid', o);
  if (split === 'test') return loadGsm8kOriginal('test', o);
  const [train, valid] = await Promise.all([loadGsm8kOriginal('train', o), loadGsm8kAug('valid', o)]);
  return {
    examples: excludeQuestions(train.examples, valid.examples, 'GSM8k-Aug valid'),
    files: [...train.files, ...valid.files],
    skipped: [...train.skipped, ...valid.skipped],
  };
}
