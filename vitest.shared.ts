/**
 * The one vitest config every package uses (each package's vitest.config.ts re-exports it):
 * tests sit next to the code as src/**\/*.test.ts; generous timeouts because the machine is a
 * shared 2-core VM; forks so TF.js backends never leak between files; temporary folders under
 * one folder per run, removed at its end (tools/test-tmpdir.ts).
 */
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: 'forks',
    globalSetup: [fileURLToPath(new URL('./tools/test-tmpdir.ts', import.meta.url))],
  },
});
