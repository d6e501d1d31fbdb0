/**
 * One process at a time per run directory: `<dir>.lock` holds the pid of the process training it.
 * A second `telepath run` of the same experiment (e.g. another seed range in another terminal)
 * waits for an arm another live process holds, then reads its record, instead of training the
 * same checkpoints twice. A lock whose process is gone (killed, machine restarted) is taken over.
 * `liveLockHolder` lets a run go on with other arms first (run-experiment.ts).
 */
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

export interface RunLock {
  release(): Promise<void>;
}

export interface LockOptions {
  /** Called once when the lock is held by another live process and this one starts waiting. */
  onWait?: (holder: LockHolder) => void;
  pollMs?: number;
  /** Stop waiting when this returns true (Ctrl-C); acquireRunLock then returns null. */
  shouldStop?: () => boolean;
}

export interface LockHolder { pid: number; host: string; since: string }

let attempts = 0;

export function lockFileOf(dir: string): string {
  return `${dir}.lock`;
}

/** Takes the lock of `dir`, waiting while another live process on this host holds it. */
export async function acquireRunLock(dir: string, o: LockOptions = {}): Promise<RunLock | null> {
  const file = lockFileOf(dir);
  const unwritable = (e: unknown) => new Error(`cannot write to run directory ${dir} (its lock ${file}): ${(e as Error).message}`);
  await fs.mkdir(path.dirname(file), { recursive: true }).catch((e) => {
    throw unwritable(e);
  });
  let announced = false;
  for (;;) {
    const mine: LockHolder = { pid: process.pid, host: os.hostname(), since: new Date().toISOString() };
    // Written whole under a private name, then hard-linked into place: the link either appears with
    // its full content or fails with EEXIST, so a reader never sees a half-written lock.
    const tmp = `${file}.${process.pid}-${attempts++}.tmp`; // unique within the process too (two runs in one process)
    await fs.writeFile(tmp, JSON.stringify(mine) + '\n').catch((e) => {
      throw unwritable(e);
    });
    try {
      await fs.link(tmp, file);
      return { release: () => fs.rm(file, { force: true }) };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw unwritable(e);
    } finally {
      await fs.rm(tmp, { force: true });
    }
    const holder = await readHolder(file);
    if (!holder || !isAlive(holder)) {
      await fs.rm(file, { force: true }); // stale: its process is gone
      continue;
    }
    if (!announced) o.onWait?.(holder);
    announced = true;
    if (o.shouldStop?.()) return null;
    await new Promise((r) => setTimeout(r, o.pollMs ?? 2000));
  }
}

/** The live process holding `dir`'s lock, or null when it is free (or held by a process that is gone). */
export async function liveLockHolder(dir: string): Promise<LockHolder | null> {
  const holder = await readHolder(lockFileOf(dir));
  return holder && isAlive(holder) ? holder : null;
}

async function readHolder(file: string): Promise<LockHolder | null> {
  try {
    const h = JSON.parse(await fs.readFile(file, 'utf8')) as LockHolder;
    return Number.isInteger(h.pid) ? h : null;
  } catch {
    return null; // absent, or vanished between the failed link and this read
  }
}

/** A holder on another host cannot be checked: it counts as alive (shared run directories). */
function isAlive(h: LockHolder): boolean {
  if (h.host !== os.hostname()) return true;
  try {
    process.kill(h.pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}
