/**
 * One process at a time per run directory: `<dir>.lock` records the host, pid, process start time
 * and boot id of the process training it, and that process touches the file every 30 s (a
 * heartbeat). A second `telepath run` of the same experiment (e.g. another seed range in another
 * terminal) waits for an arm another live process holds, then reads its record, instead of
 * training the same checkpoints twice. A stale lock is taken over:
 *   - same host: its process is gone, its pid now belongs to another process (another start
 *     time), or the machine has restarted since (another boot id);
 *   - another host (a shared run directory): its heartbeat has stopped for LOCK_STALE_MS.
 * `lockState` says which, and why; `liveLockHolder` lets a run go on with other arms first.
 */
import { readFileSync } from 'node:fs';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

export interface RunLock {
  release(): Promise<void>;
}

export interface LockOptions {
  /** Called once when the lock is held by another live process and this one starts waiting; `why` says how it was judged live. */
  onWait?: (holder: LockHolder, why: string) => void;
  pollMs?: number;
  /** Stop waiting when this returns true (Ctrl-C); acquireRunLock then returns null. */
  shouldStop?: () => boolean;
  /** Do not wait: when another live process holds the lock, return 'busy' at once. */
  noWait?: boolean;
}

export interface LockHolder {
  pid: number;
  host: string;
  since: string;
  /** The process's start time (clock ticks since boot, /proc/<pid>/stat): tells a reused pid apart. Absent off Linux and in older locks. */
  started?: string;
  /** /proc/sys/kernel/random/boot_id when written: a lock from before a restart is stale. */
  boot?: string;
}

/** A lock from another host whose heartbeat is older than this is taken over. */
export const LOCK_STALE_MS = 10 * 60_000;
export const LOCK_HEARTBEAT_MS = 30_000;

export type LockState = { state: 'free' } | { state: 'live' | 'stale'; holder: LockHolder; why: string; file: string };

let attempts = 0;

export function lockFileOf(dir: string): string {
  return `${dir}.lock`;
}

/** Takes the lock of `dir`, waiting while another live process holds it (see the module comment); with `noWait`, 'busy' instead of waiting. */
export async function acquireRunLock(
  dir: string,
  o: LockOptions & { noWait: boolean },
): Promise<RunLock | null | 'busy'>;
export async function acquireRunLock(dir: string, o?: LockOptions): Promise<RunLock | null>;
export async function acquireRunLock(dir: string, o: LockOptions = {}): Promise<RunLock | null | 'busy'> {
  const file = lockFileOf(dir);
  const unwritable = (e: unknown) =>
    new Error(`cannot write to run directory ${dir} (its lock ${file}): ${(e as Error).message}`);
  await fs.mkdir(path.dirname(file), { recursive: true }).catch((e) => {
    throw unwritable(e);
  });
  let announced = false;
  for (;;) {
    const mine: LockHolder = {
      pid: process.pid,
      host: os.hostname(),
      since: new Date().toISOString(),
      ...processIdentity(process.pid),
    };
    // Written whole under a private name, then hard-linked into place: the link either appears with
    // its full content or fails with EEXIST, so a reader never sees a half-written lock.
    const tmp = `${file}.${process.pid}-${attempts++}.tmp`; // unique within the process too (two runs in one process)
    await fs.writeFile(tmp, JSON.stringify(mine) + '\n').catch(async (e) => {
      await fs.rm(tmp, { force: true }); // a full disk: no half-written private file left behind
      throw unwritable(e);
    });
    try {
      await fs.link(tmp, file);
      return heldLock(file);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw unwritable(e);
    } finally {
      await fs.rm(tmp, { force: true });
    }
    const seen = await lockState(dir);
    if (seen.state !== 'live') {
      await removeIfUnchanged(file, seen.state === 'stale' ? seen.holder : null);
      continue;
    }
    if (o.noWait) return 'busy';
    if (!announced) o.onWait?.(seen.holder, seen.why);
    announced = true;
    if (o.shouldStop?.()) return null;
    await new Promise((r) => setTimeout(r, o.pollMs ?? 2000));
  }
}

/** The live process holding `dir`'s lock, or null when it is free or stale. */
export async function liveLockHolder(dir: string): Promise<LockHolder | null> {
  const s = await lockState(dir);
  return s.state === 'live' ? s.holder : null;
}

/** Whether `dir`'s lock is free, held by a live process, or stale — with the reason, in words. */
export async function lockState(dir: string, now = Date.now()): Promise<LockState> {
  const file = lockFileOf(dir);
  let text: string;
  let mtimeMs: number;
  try {
    [text, mtimeMs] = await Promise.all([fs.readFile(file, 'utf8'), fs.stat(file).then((s) => s.mtimeMs)]);
  } catch {
    return { state: 'free' }; // absent, or vanished between the failed link and this read
  }
  let h: LockHolder;
  try {
    h = JSON.parse(text) as LockHolder;
  } catch {
    return { state: 'free' }; // not ours: links appear whole
  }
  if (!Number.isInteger(h.pid)) return { state: 'free' };
  const at = (state: 'live' | 'stale', why: string): LockState => ({ state, holder: h, why, file });
  if (h.host !== os.hostname()) {
    const age = Math.round((now - mtimeMs) / 1000);
    const rule = `taken over after ${LOCK_STALE_MS / 60_000} min without one; if that process is gone, rm ${file}`;
    return age * 1000 > LOCK_STALE_MS
      ? at('stale', `held by pid ${h.pid} on host ${h.host}, whose last heartbeat was ${age} s ago`)
      : at('live', `pid ${h.pid} on host ${h.host}, last heartbeat ${age} s ago (${rule})`);
  }
  const current = processIdentity(h.pid);
  if (h.boot && current.boot && h.boot !== current.boot)
    return at('stale', `written by pid ${h.pid} before this machine restarted`);
  if (!pidAlive(h.pid)) return at('stale', `its process ${h.pid} has exited`);
  if (h.started && current.started && h.started !== current.started)
    return at('stale', `pid ${h.pid} now belongs to another process (started at another time)`);
  return at('live', `pid ${h.pid} on this host`);
}

function heldLock(file: string): RunLock {
  const beat = setInterval(() => {
    const t = new Date();
    fs.utimes(file, t, t).catch(() => undefined); // a lock removed by hand: nothing to touch
  }, LOCK_HEARTBEAT_MS);
  beat.unref();
  return {
    release: async () => {
      clearInterval(beat);
      await fs.rm(file, { force: true });
    },
  };
}

/** Removes a stale lock only if it still holds what was judged stale (another taker may have replaced it since). */
async function removeIfUnchanged(file: string, stale: LockHolder | null): Promise<void> {
  try {
    const now = JSON.parse(await fs.readFile(file, 'utf8')) as LockHolder;
    if (stale && (now.pid !== stale.pid || now.since !== stale.since || now.host !== stale.host)) return;
  } catch {
    // unreadable or gone: nothing of a live process's
  }
  await fs.rm(file, { force: true });
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Start time and boot id of a process on this host, where /proc has them (Linux); {} elsewhere. */
function processIdentity(pid: number): { started?: string; boot?: string } {
  const out: { started?: string; boot?: string } = {};
  try {
    out.boot = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
  } catch {
    // not Linux
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the parenthesised command name (which may hold spaces); starttime is field 22.
    out.started = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    // no such process, or no /proc
  }
  return out;
}
