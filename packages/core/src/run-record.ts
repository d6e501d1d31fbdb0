/**
 * Run records: if it has no record, it did not happen. A run directory holds
 *   config.resolved.json  the resolved config
 *   env.json              git sha and dirty flag, Node / TF.js / package versions, the backend
 *                         actually used (and why others were skipped; the native backend's
 *                         threads, instruction set and OpenBLAS core), the fused kernels it
 *                         runs, the cores and CPU model, dataset hashes
 *   metrics.jsonl         one JSON object per log: {"step": 250, "train/loss": 1.92, ...}
 *   samples.jsonl         generations, one per line
 *   summary.json          written by finish()
 * JSON files are written atomically; JSONL lines are appended one at a time, and a torn last line
 * (a crash mid-append) is ignored on read and cut off when the record is resumed, so the next
 * line starts on a line of its own. `dropMetrics` removes the lines a resumed run redoes.
 */
import { execFileSync } from 'node:child_process';
import { constants as fsConstants, promises as fs, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { availableParallelism, cpus } from 'node:os';
import * as path from 'node:path';
import * as tf from '@tensorflow/tfjs-core';
import { appendLine, writeFileAtomic } from './atomic.js';
import { currentBackend, type BackendInfo } from './backend.js';
import { fileError } from './errors.js';
import { activeFusedKernels } from './fused.js';

/**
 * Where two resolved configs differ, as "path: recorded → current" (JSON values; at most `limit`,
 * then a count), e.g. ["arm.config.maxNewTokens: 64 → 128"]. Empty when they are equal. With
 * `acceptAdded`, a key the recorded config lacks is not a difference when `acceptAdded(path,
 * current value)` says so: a record written before that setting existed, e.g. at the setting's
 * default, the old behaviour (`() => true` accepts every added key).
 */
export function configDifferences(
  recorded: unknown,
  current: unknown,
  o: { limit?: number; acceptAdded?: (at: string, value: unknown) => boolean } = {},
): string[] {
  const limit = o.limit ?? 5;
  const out: string[] = [];
  const walk = (a: unknown, b: unknown, at: string): void => {
    if (a === undefined && o.acceptAdded?.(at, b)) return;
    const objects =
      typeof a === 'object' &&
      a !== null &&
      typeof b === 'object' &&
      b !== null &&
      Array.isArray(a) === Array.isArray(b);
    if (objects && !Array.isArray(a)) {
      const ra = a as Record<string, unknown>;
      const rb = b as Record<string, unknown>;
      for (const k of new Set([...Object.keys(ra), ...Object.keys(rb)])) walk(ra[k], rb[k], at ? `${at}.${k}` : k);
    } else if (JSON.stringify(a) !== JSON.stringify(b)) {
      out.push(`${at || '(root)'}: ${JSON.stringify(a) ?? 'absent'} → ${JSON.stringify(b) ?? 'absent'}`);
    }
  };
  walk(recorded, current, '');
  return out.length > limit ? [...out.slice(0, limit), `${out.length - limit} more`] : out;
}

export interface RunEnv {
  createdAt: string;
  git: { sha: string | null; dirty: boolean | null };
  node: string;
  tfjs: string;
  packages: Record<string, string>;
  backend: BackendInfo | null;
  /** Fused kernels the backend runs for core's ops (fused.ts); [] where it runs plain ops only. */
  fusedKernels: string[];
  platform: string;
  /** Cores this process may use (os.availableParallelism; 0 in records written before 2026-12-06, which read navigator and got nothing on Node 20). */
  cpus: number;
  /** The first core's model name ('' where the OS does not say). */
  cpuModel: string;
  datasets: Record<string, string>;
  argv: string[];
}

export interface OpenOptions {
  /** Dataset name → sha256, recorded in env.json. */
  datasets?: Record<string, string>;
  /** Continue an existing record (resume) instead of refusing to overwrite it. */
  resume?: boolean;
  /**
   * On resume, settings the record lacks that may be resumed anyway (`configDifferences`'
   * `acceptAdded`): a setting added since the run started, at the default that keeps the old behaviour.
   */
  acceptAdded?: (at: string, value: unknown) => boolean;
}

export class RunRecord {
  /** Appends are chained so lines land in call order even when callers do not await them. */
  private pending: Promise<void> = Promise.resolve();

  private constructor(readonly dir: string) {}

  static async open(dir: string, resolvedConfig: unknown, o: OpenOptions = {}): Promise<RunRecord> {
    try {
      await fs.mkdir(dir, { recursive: true });
      await fs.access(dir, fsConstants.W_OK);
    } catch (e) {
      throw new Error(`RunRecord: cannot write to run directory ${dir}: ${(e as Error).message}`);
    }
    const rec = new RunRecord(dir);
    const existing = await readJsonIfExists(path.join(dir, 'config.resolved.json'));
    if (existing !== undefined && !o.resume)
      throw new Error(`RunRecord: ${dir} already holds a run; pass resume to continue it`);
    const changed =
      existing === undefined ? [] : configDifferences(existing, resolvedConfig, { acceptAdded: o.acceptAdded });
    if (changed.length > 0) {
      throw new Error(
        `RunRecord: ${dir} was started with a different config (${changed.join('; ')}); refusing to resume it`,
      );
    }
    for (const jsonl of ['metrics.jsonl', 'samples.jsonl']) await cutTornLine(path.join(dir, jsonl));
    await writeFileAtomic(path.join(dir, 'config.resolved.json'), JSON.stringify(resolvedConfig, null, 2) + '\n');
    await writeFileAtomic(path.join(dir, 'env.json'), JSON.stringify(collectEnv(o.datasets ?? {}), null, 2) + '\n');
    return rec;
  }

  file(name: string): string {
    return path.join(this.dir, name);
  }

  log(step: number, metrics: Record<string, number>): Promise<void> {
    for (const [k, v] of Object.entries(metrics)) {
      if (typeof v !== 'number') throw new Error(`RunRecord.log: metric ${k} must be a number, got ${typeof v}`);
    }
    return this.append('metrics.jsonl', JSON.stringify({ step, ...metrics }));
  }

  /**
   * Rewrites metrics.jsonl (atomically) without the lines `drop` selects, e.g. a phase's steps
   * past the checkpoint a crashed run resumes from, which it logs again. Returns how many went.
   */
  async dropMetrics(drop: (line: Record<string, unknown>) => boolean): Promise<number> {
    await this.flush();
    const file = this.file('metrics.jsonl');
    const lines = (await readJsonl(file)) as Record<string, unknown>[];
    const kept = lines.filter((l) => !drop(l));
    if (kept.length < lines.length) await writeFileAtomic(file, kept.map((l) => JSON.stringify(l) + '\n').join(''));
    return lines.length - kept.length;
  }

  sample(s: object): Promise<void> {
    return this.append('samples.jsonl', JSON.stringify(s));
  }

  /** Resolves when every earlier log/sample line is written. */
  flush(): Promise<void> {
    return this.pending;
  }

  private append(name: string, line: string): Promise<void> {
    this.pending = this.pending.then(() => appendLine(this.file(name), line));
    return this.pending;
  }

  async writeJson(name: string, value: unknown): Promise<void> {
    await writeFileAtomic(this.file(name), JSON.stringify(value, null, 2) + '\n');
  }

  async finish(summary: object): Promise<void> {
    await this.flush();
    await this.writeJson('summary.json', { ...summary, finishedAt: new Date().toISOString() });
  }

  static async readMetrics(dir: string): Promise<Record<string, number>[]> {
    return readJsonl(path.join(dir, 'metrics.jsonl')) as Promise<Record<string, number>[]>;
  }
}

/** Reads a JSONL file; a malformed line throws with file and line, except a torn final line. */
export async function readJsonl(file: string): Promise<unknown[]> {
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw fileError('read', file, e);
  }
  const lines = text.split('\n');
  const out: unknown[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (lines[i].trim() === '') continue;
    try {
      out.push(JSON.parse(lines[i]));
    } catch (e) {
      const isLast = i === lines.length - 1 && !text.endsWith('\n');
      if (isLast) break; // torn append from a crash
      throw new Error(`${file}:${i + 1}: not valid JSON (${(e as Error).message})`);
    }
  }
  return out;
}

/** Cuts a JSONL file back to its last complete line (a crash mid-append leaves a torn one). */
async function cutTornLine(file: string): Promise<void> {
  let text: Buffer;
  try {
    text = await fs.readFile(file);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw fileError('read', file, e);
  }
  if (text.length === 0 || text[text.length - 1] === 0x0a) return;
  await fs.truncate(file, text.lastIndexOf(0x0a) + 1).catch((e: unknown) => {
    throw fileError('repair', file, e);
  });
}

async function readJsonIfExists(file: string): Promise<unknown> {
  try {
    return JSON.parse(await fs.readFile(file, 'utf8'));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new Error(`${file}: ${(e as Error).message}`);
  }
}

export function collectEnv(datasets: Record<string, string>): RunEnv {
  return {
    createdAt: new Date().toISOString(),
    git: gitState(),
    node: process.version,
    tfjs: tf.version_core,
    packages: workspaceVersions(),
    backend: currentBackend() ?? null,
    fusedKernels: activeFusedKernels(),
    platform: `${process.platform}-${process.arch}`,
    cpus: availableParallelism(),
    cpuModel: cpus()[0]?.model.trim() ?? '',
    datasets,
    argv: process.argv.slice(2),
  };
}

function gitState(): RunEnv['git'] {
  try {
    const sha = execFileSync('git', ['rev-parse', 'HEAD'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
    const dirty =
      execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'ignore'],
      }).trim() !== '';
    return { sha, dirty };
  } catch {
    return { sha: null, dirty: null };
  }
}

function workspaceVersions(): Record<string, string> {
  const out: Record<string, string> = {};
  const require = createRequire(import.meta.url);
  for (const name of [
    '@telepath/core',
    '@tensorflow/tfjs',
    '@tensorflow/tfjs-backend-wasm',
    '@tensorflow/tfjs-backend-webgpu',
    'webgpu',
    '@telepath/backend-native',
  ]) {
    try {
      out[name] = (
        JSON.parse(readFileSync(require.resolve(`${name}/package.json`), 'utf8')) as { version: string }
      ).version;
    } catch {
      // not installed
    }
  }
  return out;
}
