#!/usr/bin/env node
// Runs the TypeScript CLI through tsx (the workspace consumes TypeScript source directly).
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const cli = fileURLToPath(new URL('../src/cli.ts', import.meta.url));
const tsx = require.resolve('tsx/cli');
// A larger young generation cuts GC time per training step (measured ≈ 37 → 11 ms on the native backend).
const r = spawnSync(process.execPath, ['--max-semi-space-size=64', tsx, cli, ...process.argv.slice(2)], {
  stdio: 'inherit',
});
process.exit(r.status ?? 1);
