/** What every loader returns: the examples, the file checks (sha256) and any skipped records. */
import type { BadRecordOptions, SkippedRecord } from './data-error.js';
import type { Example } from './example.js';
import type { FileCheck, ReadOptions } from './files.js';

export interface LoadResult {
  examples: Example[];
  files: FileCheck[];
  /** Records left out because `skipBad` was set; empty otherwise. */
  skipped: SkippedRecord[];
}

export type LoadOptions = ReadOptions & BadRecordOptions;

/**
 * Non-empty lines of a line-oriented file with their 1-based numbers. One trailing newline is
 * allowed; a blank line elsewhere is reported by the caller as a bad record.
 */
export function numberedLines(text: string): { line: number; text: string }[] {
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines.map((t, i) => ({ line: i + 1, text: t.endsWith('\r') ? t.slice(0, -1) : t }));
}
