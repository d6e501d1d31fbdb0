/**
 * The shared vitest setup (tools/test-tmpdir.ts) gives every package run one temporary folder,
 * removed at its end, so the tests' mkdtemp folders do not pile up in /tmp.
 */
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename } from 'node:path';
import { expect, it } from 'vitest';

it("puts the tests' temporary folders under the run's own folder", () => {
  expect(basename(tmpdir())).toMatch(/^telepath-test-/);
  expect(existsSync(tmpdir())).toBe(true);
});
