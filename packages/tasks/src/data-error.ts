/**
 * Errors for bad dataset input: every message names the file, the line (1-based) and the field,
 * so a broken record can be found with an editor. A missing file names its path and the
 * datasets/README.md section that says where the file comes from.
 * A bad value is quoted by `quotePrefix`: at most a short prefix of it, never a 10 MB string.
 */
import { UserError } from '@telepath/core';

export class DataError extends UserError {
  constructor(
    readonly file: string,
    readonly line: number | null,
    readonly field: string | null,
    readonly reason: string,
  ) {
    super(`${file}${line === null ? '' : `:${line}`}${field === null ? '' : ` field "${field}"`}: ${reason}`);
    this.name = 'DataError';
  }
}

/** A record that a loader told to skip bad records left out, with the reason. */
export interface SkippedRecord {
  file: string;
  line: number | null;
  field: string | null;
  reason: string;
}

/** How loaders treat a bad record: throw (default) or skip it and report it. */
export interface BadRecordOptions {
  /** Skip malformed records instead of throwing; every skip is listed in the result. */
  skipBad?: boolean;
}

/** Runs `parse`; on a DataError either rethrows or records the skip. Returns null when skipped. */
export function parseOrSkip<T>(parse: () => T, skipped: SkippedRecord[], o: BadRecordOptions): T | null {
  try {
    return parse();
  } catch (e) {
    if (!(e instanceof DataError) || !o.skipBad) throw e;
    skipped.push({ file: e.file, line: e.line, field: e.field, reason: e.reason });
    return null;
  }
}

/** A value for an error message: its JSON, cut to `max` characters with the full length named. */
export function quotePrefix(value: unknown, max = 24): string {
  const json = JSON.stringify(value) ?? String(value);
  return json.length <= max ? json : `${json.slice(0, max)}… (${json.length} characters)`;
}
