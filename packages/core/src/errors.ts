/**
 * Errors a user can act on (a bad config key, a corrupt or truncated file, a malformed data
 * line): the message says everything, naming the file, key or line and what was expected, so a
 * CLI prints that one line and no stack. Any other exception is a bug, and its stack is what a
 * report of it needs.
 */
import { promises as fs } from 'node:fs';

export class UserError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'UserError';
  }
}

/** True for errors whose message is the whole story for a user (UserError and plain Errors). */
export function isUserError(e: unknown): boolean {
  return e instanceof UserError || (e instanceof Error && e.constructor === Error);
}

/** The `cause`-keeping wrapper for an I/O failure: "cannot <verb> <file>: <reason>" (the errno code is kept). */
export function fileError(verb: string, file: string, e: unknown): UserError {
  const err = new UserError(`cannot ${verb} ${file}: ${(e as Error).message}`, { cause: e });
  const code = (e as NodeJS.ErrnoException).code;
  if (code) (err as UserError & { code?: string }).code = code;
  return err;
}

/**
 * Reads and parses a JSON file; an unreadable, empty, truncated or malformed one is an error
 * naming the file and what is wrong (never a bare SyntaxError).
 */
export async function readJsonFile<T = unknown>(file: string): Promise<T> {
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch (e) {
    throw fileError('read', file, e);
  }
  try {
    return JSON.parse(text) as T;
  } catch (e) {
    const what = text.trim() === '' ? 'is empty' : `is truncated or not valid JSON (${(e as Error).message})`;
    throw new UserError(
      `${file} ${what}; the record is damaged — rerun what wrote it (telepath run --force for a run directory)`,
    );
  }
}
