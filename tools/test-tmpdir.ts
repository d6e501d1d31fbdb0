/**
 * Vitest global setup (vitest.shared.ts): every test file of a package run writes its temporary
 * folders under one fresh folder (`TMPDIR` points there, so `os.tmpdir()` in the test workers and
 * in the processes they start returns it), removed when the run ends. Without it each `npm test`
 * left a few hundred folders in /tmp. `TELEPATH_KEEP_TEST_TMP=1` keeps the folder and says where.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export default function setup(): () => void {
  const root = mkdtempSync(join(tmpdir(), 'telepath-test-'));
  process.env.TMPDIR = root;
  return () => {
    if (process.env.TELEPATH_KEEP_TEST_TMP === '1') console.log(`[telepath] test files kept in ${root}`);
    else rmSync(root, { recursive: true, force: true });
  };
}
