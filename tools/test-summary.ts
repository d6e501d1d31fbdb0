/**
 * Prints one closing line for the whole suite — "tests: N passed, N failed, N skipped" — from the
 * JSON reports every package's `vitest run` writes (.vitest-results.json), and exits 1 if any test
 * failed or no test ran.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve, dirname } from 'node:path';

const ROOT = resolve(dirname(new URL(import.meta.url).pathname), '..');
let passed = 0;
let failed = 0;
let skipped = 0;
const missing: string[] = [];
for (const group of ['packages', 'apps']) {
  if (!existsSync(join(ROOT, group))) continue;
  for (const name of readdirSync(join(ROOT, group))) {
    const dir = join(ROOT, group, name);
    if (!existsSync(join(dir, 'package.json'))) continue;
    const scripts = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).scripts ?? {};
    if (!scripts.test) continue;
    const file = join(dir, '.vitest-results.json');
    if (!existsSync(file)) {
      missing.push(`${group}/${name}`);
      continue;
    }
    const r = JSON.parse(readFileSync(file, 'utf8')) as {
      numPassedTests: number;
      numFailedTests: number;
      numPendingTests: number;
      numTodoTests: number;
    };
    passed += r.numPassedTests;
    failed += r.numFailedTests;
    skipped += r.numPendingTests + r.numTodoTests;
  }
}
if (missing.length) console.error(`test-summary: no results from ${missing.join(', ')}`);
console.log(`tests: ${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exit(failed > 0 || passed === 0 || missing.length > 0 ? 1 : 0);
