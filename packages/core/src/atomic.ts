/**
 * Atomic writes: data goes to a temporary file in the same directory, is flushed to disk, and
 * is renamed over the target, so a crash leaves either the old file or the new one, never a
 * torn one.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { fileError } from './errors.js';

export async function writeFileAtomic(target: string, data: string | Uint8Array): Promise<void> {
  const dir = path.dirname(target);
  try {
    await fs.mkdir(dir, { recursive: true });
  } catch (e) {
    throw fileError('write', target, e);
  }
  const tmp = path.join(
    dir,
    `.${path.basename(target)}.tmp-${process.pid}-${Date.now()}-${Math.floor(performance.now() * 1000) % 1e6}`,
  );
  // Any failure (a full disk mid-write, a failed rename) removes the temporary file and names the
  // target: Node's own message ("ENOSPC: no space left on device, write") names no file.
  try {
    const handle = await fs.open(tmp, 'w');
    try {
      await handle.writeFile(data);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await fs.rename(tmp, target);
  } catch (e) {
    await fs.rm(tmp, { force: true }).catch(() => undefined);
    throw fileError('write', target, e);
  }
}

/** Appends one line; used for JSONL logs, where a torn last line is detected on read. */
export async function appendLine(target: string, line: string): Promise<void> {
  try {
    await fs.mkdir(path.dirname(target), { recursive: true });
    await fs.appendFile(target, line.endsWith('\n') ? line : line + '\n');
  } catch (e) {
    throw fileError('append to', target, e);
  }
}
