/**
 * Writes the small saved latents the notebooks (and CI) run on:
 * docs/notebooks/data/sample-run/latents.bin — 8 synthetic slots × 96 examples × width 32,
 * drawn by @telepath/analysis/testing's `syntheticSlots` with a fixed seed, so the file is
 * byte-identical on every run (the script checks this against the committed file with --check).
 * The structure mimics paper A's "separated but redundant" reading (docs/method-reference.md §3): every slot
 * holds the same 6 shared directions (correlated across slots for the same example) plus 2
 * private ones, and slot means are offset from each other.
 *   npm run sample-latents -w @telepath/notebooks [-- --check]
 */
import { readLatentTrace, writeLatentTrace } from '@telepath/core';
import { syntheticSlots, type SyntheticSlotsOptions } from '@telepath/analysis/testing';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const TARGET = join(ROOT, 'docs', 'notebooks', 'data', 'sample-run', 'latents.bin');

/** chosen: small enough to commit (≈ 100 KB) yet with a visible structure in every metric */
export const SAMPLE_LATENTS: SyntheticSlotsOptions = {
  slots: 8,
  rows: 96,
  width: 32,
  sharedRank: 6,
  privateRank: 2,
  sharedStd: 1,
  privateStd: 1,
  noise: 0.05,
  separation: 2,
  sharedCorrelation: 0.7,
  seed: 2510,
};

const sha = (p: string) => createHash('sha256').update(readFileSync(p)).digest('hex');

async function main(): Promise<void> {
  const trace = syntheticSlots(SAMPLE_LATENTS);
  const meta = { generator: 'apps/notebooks/scripts/make-sample-latents.ts', options: SAMPLE_LATENTS };
  if (process.argv.includes('--check')) {
    const dir = await mkdtemp(join(tmpdir(), 'telepath-sample-'));
    try {
      await writeLatentTrace(join(dir, 'latents.bin'), trace, meta);
      const same = existsSync(TARGET) && sha(TARGET) === sha(join(dir, 'latents.bin'));
      console.log(
        same
          ? `sample latents: ${TARGET} is up to date`
          : `sample latents: ${TARGET} differs from a fresh build; rerun without --check`,
      );
      process.exitCode = same ? 0 : 1;
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
    return;
  }
  await writeLatentTrace(TARGET, trace, meta);
  const back = await readLatentTrace(TARGET);
  console.log(
    `sample latents: wrote ${TARGET} (${readFileSync(TARGET).length} bytes, ${back.slots.length} slots × [${back.slots[0].rows}, ${back.slots[0].width}], sha256 ${sha(TARGET).slice(0, 12)}…)`,
  );
}

await main();
