/**
 * Reading shipped dataset files: locate datasets/, read the bytes, check the sha256 against the
 * registry, and say clearly when a file is missing or was changed (issue 3 "Bad input").
 */
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DATASET_FILES, type DatasetFileKey } from './registry.js';

export interface ReadOptions {
  /** The datasets/ folder; default `$TELEPATH_DATASETS` or the monorepo's datasets/. */
  datasetsDir?: string;
  /**
   * What to do when the sha256 differs from the recorded one: 'error' (default) throws;
   * 'warn' reads the file anyway, marks it `changed` and calls `onWarning`.
   */
  onChanged?: 'error' | 'warn';
  onWarning?: (message: string) => void;
}

export interface FileCheck {
  key: DatasetFileKey;
  path: string;
  sha256: string;
  expectedSha256: string;
  bytes: number;
  changed: boolean;
}

/** The monorepo's datasets/ folder (or `$TELEPATH_DATASETS`). */
export function defaultDatasetsDir(): string {
  const fromEnv = process.env.TELEPATH_DATASETS;
  if (fromEnv) return path.resolve(fromEnv);
  // This file is packages/tasks/src/files.ts; datasets/ is three levels up.
  return path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../datasets');
}

export function datasetPath(key: DatasetFileKey, o: ReadOptions = {}): string {
  const f = DATASET_FILES[key];
  return path.join(o.datasetsDir ?? defaultDatasetsDir(), f.dir, f.file);
}

export function sha256Hex(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

/** Reads one registered file as UTF-8 text after checking its sha256. */
export async function readDatasetFile(
  key: DatasetFileKey,
  o: ReadOptions = {},
): Promise<{ text: string; check: FileCheck }> {
  const f = DATASET_FILES[key];
  const p = datasetPath(key, o);
  let buf: Buffer;
  try {
    buf = await fs.readFile(p);
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    if (err.code === 'ENOENT') {
      throw new Error(
        `Missing dataset file ${p}. Where it comes from: datasets/README.md, section "${f.readmeSection}" ` +
          `(and datasets/${f.dir}/PROVENANCE.md).`,
      );
    }
    throw new Error(`Cannot read dataset file ${p}: ${err.message}`);
  }
  const sha256 = sha256Hex(buf);
  const changed = sha256 !== f.sha256;
  if (changed) {
    const msg =
      `Dataset file ${p} was changed: its sha256 is ${sha256} (${buf.length} bytes) but datasets/README.md ` +
      `and datasets/${f.dir}/PROVENANCE.md record ${f.sha256} (${f.bytes} bytes). Restore the original from the source in ` +
      `section "${f.readmeSection}" of datasets/README.md.`;
    if ((o.onChanged ?? 'error') === 'error') throw new Error(msg);
    o.onWarning?.(msg);
  }
  return {
    text: buf.toString('utf8'),
    check: { key, path: p, sha256, expectedSha256: f.sha256, bytes: buf.length, changed },
  };
}

/** sha256 of a set of examples written canonically (one JSON object per line) — the digest of a derived or generated split. */
export function examplesSha256(examples: readonly unknown[]): string {
  return sha256Hex(examples.map((e) => JSON.stringify(e)).join('\n') + '\n');
}
