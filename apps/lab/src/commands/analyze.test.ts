import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { expect, it } from 'vitest';
import { analyzeCommand } from './analyze.js';

const SAMPLE = resolve(__dirname, '../../../../docs/notebooks/data/sample-run');

it("telepath analyze writes the subspace tables and heatmaps of a run's latents", async () => {
  const out = mkdtempSync(join(tmpdir(), 'analyze-'));
  expect(await analyzeCommand([SAMPLE, '--out', out, '--backend', 'cpu'])).toBe(0);
  for (const f of [
    'subspace.md',
    'subspace-slots.csv',
    'subspace.json',
    'cross-capture.svg',
    'cross-capture.png',
    'cka.svg',
    'cka.png',
  ])
    expect(existsSync(join(out, f)), f).toBe(true);
  const json = JSON.parse(readFileSync(join(out, 'subspace.json'), 'utf8'));
  expect(json.summary.hOff).toBeGreaterThan(0);
  expect(json.summary.hOff).toBeLessThanOrEqual(1);
  await expect(analyzeCommand([out])).rejects.toThrow(/no latents\.bin/);
}, 120_000);
