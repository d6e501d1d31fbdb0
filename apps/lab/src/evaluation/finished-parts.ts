/**
 * The finished parts of an arm's evaluation, kept beside the run so that an interrupted evaluation
 * resumes where it stopped: the main test set, each further test set, each decoding pass after the
 * first (CoLaR's 5) and each latent control is one part, written to `evaluation-parts/<key>.json`
 * once it is complete. A part is reused only when its fingerprint (the final weights' bytes, the
 * evaluation settings and the seed) and its question ids match; otherwise it is evaluated again.
 * The folder is removed once the arm's summary is written.
 */
import { createHash } from 'node:crypto';
import { existsSync, promises as fs } from 'node:fs';
import * as path from 'node:path';
import { UserError, writeFileAtomic } from '@telepath/core';
import type { EvalResult } from './evaluate.js';

export const PARTS_DIR = 'evaluation-parts';

interface StoredPart {
  fingerprint: string;
  ids: string[];
  result: EvalResult;
}

/** sha256 of the weights file, the evaluation settings and the seed: what a part's answers depend on. */
export async function evaluationFingerprint(weightsFile: string, settings: unknown, seed: number): Promise<string> {
  const h = createHash('sha256');
  h.update(await fs.readFile(weightsFile));
  h.update(JSON.stringify({ settings, seed }));
  return h.digest('hex');
}

export class FinishedParts {
  readonly dir: string;

  constructor(
    runDir: string,
    readonly fingerprint: string,
  ) {
    this.dir = path.join(runDir, PARTS_DIR);
  }

  private file(key: string): string {
    if (!/^[\w.-]+$/.test(key)) throw new Error(`evaluation part key "${key}" must be letters, digits, _ . or -`);
    return path.join(this.dir, `${key}.json`);
  }

  /** Part `key`'s result when it finished with these weights and settings on exactly these questions. */
  async read(key: string, ids: readonly string[]): Promise<EvalResult | undefined> {
    const file = this.file(key);
    if (!existsSync(file)) return undefined;
    let stored: StoredPart;
    try {
      stored = JSON.parse(await fs.readFile(file, 'utf8')) as StoredPart;
    } catch (e) {
      throw new UserError(`${file} is not JSON (${(e as Error).message}); delete it and the part is evaluated again`);
    }
    const same = stored.fingerprint === this.fingerprint && sameIds(stored.ids, ids);
    return same ? stored.result : undefined;
  }

  async write(key: string, ids: readonly string[], result: EvalResult): Promise<void> {
    await fs.mkdir(this.dir, { recursive: true });
    const stored: StoredPart = { fingerprint: this.fingerprint, ids: [...ids], result };
    await writeFileAtomic(this.file(key), JSON.stringify(stored) + '\n');
  }

  /** Removes every kept part (the evaluation is complete and recorded). */
  async clear(): Promise<void> {
    await fs.rm(this.dir, { recursive: true, force: true });
  }
}

const sameIds = (a: readonly string[] | undefined, b: readonly string[]) =>
  Array.isArray(a) && a.length === b.length && a.every((id, i) => id === b[i]);

/** The evaluation option that keeps a result as part `key` of `parts` (none without parts). */
export const keepAs = (parts: FinishedParts | undefined, key: string) => (parts ? { keep: { parts, key } } : {});
