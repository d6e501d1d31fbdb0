/**
 * Golden fixtures (house rule 9c): a method's first training losses, from `fixedInitLm` on the
 * cpu backend, stored in `src/__fixtures__/<method>-golden.json` as
 *   { "version": 1, "createdWith": "<command> @ <ISO date>", "losses": [ … ] }
 * and compared within an absolute tolerance (1e-4 by default). A behaviour change in the LM, the
 * optimizer or a method's loss moves the losses and fails the test with a per-step diff.
 *
 * Regenerating, after an intended change (review the diff of the fixture like code):
 *   cd packages/<pkg> && TELEPATH_UPDATE_GOLDEN=1 npx vitest run golden
 * In that mode `expectGolden` writes the fixture atomically (temp file + rename) instead of
 * comparing. A missing fixture is an error in normal runs, never a silent pass.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { writeFileAtomic } from './atomic.js';
import type { Example } from './method.js';
import type { TrainConfig } from './train.js';

/** Format version of the fixture files; bump when the layout changes (old files then fail clearly). */
export const GOLDEN_VERSION = 1;
export const GOLDEN_UPDATE_ENV = 'TELEPATH_UPDATE_GOLDEN';
export const GOLDEN_TOLERANCE = 1e-4;

export interface GoldenFixture {
  version: number;
  /** The command that wrote the fixture and when (ISO date). */
  createdWith: string;
  losses: number[];
}

/**
 * The training settings every golden test uses: 5 steps touching warmup, cosine decay, weight
 * decay and clipping (chosen: lr large enough that 4 updates move the loss well past 1e-4).
 */
export const GOLDEN_TRAIN: TrainConfig = {
  steps: 5,
  gradAccum: 1,
  logEvery: 1000,
  checkpointEvery: 0,
  optim: {
    lr: 1e-2,
    lrMinRatio: 0.1,
    warmupSteps: 1,
    beta1: 0.9,
    beta2: 0.999,
    eps: 1e-8,
    weightDecay: 0.01,
    clipNorm: 1,
  },
};

/** The batch of golden step `step`: a fixed window of `size` examples, wrapping around `data`. */
export function goldenBatch(data: Example[], step: number, size = 8): Example[] {
  return Array.from({ length: size }, (_, i) => data[(step * size + i) % data.length]);
}

export function goldenUpdateRequested(): boolean {
  return process.env[GOLDEN_UPDATE_ENV] === '1';
}

/** The command that regenerates the fixtures of the package containing `file`. */
export function goldenCommand(file: string): string {
  let dir = path.dirname(path.resolve(file));
  while (path.basename(path.dirname(dir)) !== 'packages' && path.dirname(dir) !== dir) dir = path.dirname(dir);
  const pkg = path.basename(path.dirname(dir)) === 'packages' ? `packages/${path.basename(dir)}` : '<package>';
  return `cd ${pkg} && ${GOLDEN_UPDATE_ENV}=1 npx vitest run golden`;
}

/** Reads and checks a fixture; errors name the file, what is wrong and how to regenerate. */
export async function readGolden(file: string): Promise<GoldenFixture> {
  const fix = `regenerate with: ${goldenCommand(file)}`;
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT')
      throw new Error(`golden fixture ${file} does not exist; ${fix}`);
    throw e;
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    throw new Error(`golden fixture ${file} is not valid JSON (${(e as Error).message}); ${fix}`);
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    throw new Error(`golden fixture ${file} must be a JSON object; ${fix}`);
  const f = raw as Partial<GoldenFixture>;
  if (f.version !== GOLDEN_VERSION)
    throw new Error(
      `golden fixture ${file} has version ${JSON.stringify(f.version)}, expected ${GOLDEN_VERSION}; ${fix}`,
    );
  if (typeof f.createdWith !== 'string' || f.createdWith.trim() === '')
    throw new Error(`golden fixture ${file} has no createdWith (the command and date that wrote it); ${fix}`);
  if (
    !Array.isArray(f.losses) ||
    f.losses.length === 0 ||
    !f.losses.every((x) => typeof x === 'number' && Number.isFinite(x))
  ) {
    throw new Error(`golden fixture ${file}: losses must be a non-empty array of finite numbers; ${fix}`);
  }
  return { version: f.version, createdWith: f.createdWith, losses: f.losses };
}

/** Writes a fixture atomically (temp file + rename). */
export async function writeGolden(
  file: string,
  losses: number[],
  createdWith = `${goldenCommand(file)} @ ${new Date().toISOString()}`,
): Promise<void> {
  if (!losses.every(Number.isFinite))
    throw new Error(`writeGolden ${file}: refusing to store non-finite losses [${losses.join(', ')}]`);
  const fixture: GoldenFixture = { version: GOLDEN_VERSION, createdWith, losses };
  await writeFileAtomic(file, JSON.stringify(fixture, null, 2) + '\n');
}

/**
 * Every |actual − expected| ≤ tolerance (and the same length), else an error listing each step
 * with both values and the difference, the fixture's createdWith, and the regenerate command.
 */
export function compareGolden(
  file: string,
  fixture: GoldenFixture,
  actual: number[],
  tolerance = GOLDEN_TOLERANCE,
): void {
  const n = Math.max(actual.length, fixture.losses.length);
  const rows: string[] = [];
  let bad = actual.length !== fixture.losses.length;
  for (let i = 0; i < n; i++) {
    const a = actual[i];
    const e = fixture.losses[i];
    const d = a === undefined || e === undefined ? NaN : Math.abs(a - e);
    const ok = d <= tolerance;
    if (!ok) bad = true;
    rows.push(
      `  step ${i}: got ${a ?? '—'}, fixture ${e ?? '—'}, |diff| ${Number.isNaN(d) ? '—' : d.toExponential(2)}${ok ? '' : '  ✗'}`,
    );
  }
  if (!bad) return;
  const head =
    actual.length !== fixture.losses.length
      ? `golden mismatch for ${file}: ${actual.length} losses, the fixture has ${fixture.losses.length}`
      : `golden mismatch for ${file}: losses differ by more than ${tolerance}`;
  throw new Error(
    `${head}\n${rows.join('\n')}\nfixture written by: ${fixture.createdWith}\nif the change is intended, ${goldenCommand(file)} and review the fixture's diff`,
  );
}

/**
 * Compares `losses` with the fixture at `file` (see compareGolden), or, when
 * TELEPATH_UPDATE_GOLDEN=1 (or `o.update`), writes them there. Returns what it did.
 */
export async function expectGolden(
  file: string,
  losses: number[],
  o: { tolerance?: number; update?: boolean } = {},
): Promise<'compared' | 'written'> {
  if (o.update ?? goldenUpdateRequested()) {
    await writeGolden(file, losses);
    return 'written';
  }
  compareGolden(file, await readGolden(file), losses, o.tolerance);
  return 'compared';
}
