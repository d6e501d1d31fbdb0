/**
 * ProsQA loader (docs/datasets.md §4): each file is one JSON array (on a single line) of records
 * `{question, answer, steps, idx_to_symbol, edges, root, target, neg_target}`. Records become
 * Examples with the graph in `meta.graph`; `toProsqaRecord` writes an Example back in the
 * original format (used for generated sets).
 */
import { DataError, parseOrSkip, type SkippedRecord } from '../data-error.js';
import type { Example } from '../example.js';
import { readDatasetFile } from '../files.js';
import { arrayElementLines } from '../json-lines.js';
import type { LoadOptions, LoadResult } from '../load-result.js';
import type { ProsqaGraph } from './graph.js';

export type ProsqaSplit = 'valid' | 'test';

/** The record format of Coconut's prosqa_*.json files. */
export interface ProsqaRecord {
  question: string;
  answer: string;
  steps: string[];
  idx_to_symbol: string[];
  edges: [number, number][];
  root: number;
  target: number;
  neg_target: number;
}

/** The graph stored in an Example's meta (throws when it is not a ProsQA example). */
export function prosqaGraph(ex: Example): ProsqaGraph {
  const g = ex.meta?.graph as ProsqaGraph | undefined;
  if (!g || !Array.isArray(g.symbols)) throw new Error(`${ex.id}: not a ProsQA example (no meta.graph)`);
  return g;
}

export function toProsqaRecord(ex: Example): ProsqaRecord {
  const g = prosqaGraph(ex);
  return {
    question: ex.question,
    answer: ex.answer,
    steps: ex.steps,
    idx_to_symbol: g.symbols,
    edges: g.edges,
    root: g.root,
    target: g.target,
    neg_target: g.negTarget,
  };
}

/** Validates one parsed record's types and ranges and converts it. */
export function parseProsqaRecord(value: unknown, id: string, file: string, line: number, index: number): Example {
  const at = (field: string, reason: string) => new DataError(file, line, `[${index}].${field}`, reason);
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new DataError(file, line, `[${index}]`, 'record is not a JSON object');
  const r = value as Record<string, unknown>;
  for (const k of ['question', 'answer']) if (typeof r[k] !== 'string') throw at(k, 'missing or not a string');
  const strings = (k: string): string[] => {
    const v = r[k];
    if (!Array.isArray(v) || !v.every((s) => typeof s === 'string')) throw at(k, 'missing or not an array of strings');
    return v as string[];
  };
  const steps = strings('steps');
  const symbols = strings('idx_to_symbol');
  const n = symbols.length;
  const nodeId = (k: string, v: unknown): number => {
    if (!Number.isInteger(v) || (v as number) < 0 || (v as number) >= n)
      throw at(k, `expected a node id in [0, ${n}), got ${JSON.stringify(v)}`);
    return v as number;
  };
  if (!Array.isArray(r.edges)) throw at('edges', 'missing or not an array');
  const edges = (r.edges as unknown[]).map((e, i): [number, number] => {
    if (!Array.isArray(e) || e.length !== 2) throw at(`edges[${i}]`, `expected [u, v], got ${JSON.stringify(e)}`);
    return [nodeId(`edges[${i}][0]`, e[0]), nodeId(`edges[${i}][1]`, e[1])];
  });
  const graph: ProsqaGraph = {
    symbols,
    edges,
    root: nodeId('root', r.root),
    target: nodeId('target', r.target),
    negTarget: nodeId('neg_target', r.neg_target),
  };
  return { id, question: r.question as string, steps, answer: r.answer as string, meta: { graph } };
}

/** Parses a ProsQA JSON array text. */
export function parseProsqaJson(
  text: string,
  file: string,
  idPrefix: string,
  skipped: SkippedRecord[],
  o: LoadOptions = {},
): Example[] {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (e) {
    throw new DataError(file, null, null, `invalid JSON: ${(e as Error).message}`);
  }
  if (!Array.isArray(data)) throw new DataError(file, 1, null, 'expected one JSON array of records');
  const lines = arrayElementLines(text);
  const out: Example[] = [];
  data.forEach((v, i) => {
    const ex = parseOrSkip(() => parseProsqaRecord(v, `${idPrefix}/${i}`, file, lines[i] ?? 1, i), skipped, o);
    if (ex) out.push(ex);
  });
  return out;
}

/** The real ProsQA valid (300) or test (500) split. */
export async function loadProsqa(split: ProsqaSplit, o: LoadOptions = {}): Promise<LoadResult> {
  const { text, check } = await readDatasetFile(split === 'valid' ? 'prosqa/valid' : 'prosqa/test', o);
  const skipped: SkippedRecord[] = [];
  const examples = parseProsqaJson(text, check.path, `prosqa/${split}`, skipped, o);
  return { examples, files: [check], skipped };
}
