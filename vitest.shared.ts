/**
 * The one vitest config every package uses (each package's vitest.config.ts re-exports it):
 * tests sit next to the code as src/**\/*.test.ts; generous timeouts because the machine is a
 * shared 2-core VM; forks so TF.js backends never leak between files.
 */
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: 'forks',
  },
});
