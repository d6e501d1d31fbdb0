/**
 * An interrupted evaluation resumes after its finished parts (test sets, decoding passes,
 * controls), and reuses a part only with the same weights, settings and questions.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { initBackend } from '@telepath/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evaluatePasses } from './eval-passes.js';
import { evaluationFingerprint, FinishedParts, PARTS_DIR } from './finished-parts.js';
import { validateExperiment } from '../experiment/experiment.js';
import { runExperiment } from '../running/run-experiment.js';
import { coinMethod, exactTask, MICRO_SETTINGS, numberedQuestions } from '../testing.js';

const tmp = mkdtempSync(join(tmpdir(), 'lab-parts-'));
beforeAll(async () => void (await initBackend('cpu', { quiet: true })));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** Counts the batches the coin method answers. */
let batches = 0;
const coin = coinMethod(() => batches++);
const task = exactTask;
const examples = numberedQuestions(40);
const settings = { batchSize: 8, maxNewTokens: 4, temperature: 1, topP: 1, maxExamples: 0, controls: [] } as never;
const state = coin.init({} as never, { passes: 4 });
const fourPasses = (parts?: FinishedParts, shouldStop?: () => boolean) =>
  evaluatePasses(coin, { passes: 4 }, state, examples, task, settings, { seed: 5, quiet: true, parts, shouldStop });

describe('finished evaluation parts', () => {
  it('a 4-pass evaluation cut in its third pass resumes there and ends as an uncut one', async () => {
    const whole = await fourPasses();
    const dir = join(tmp, 'passes');
    const parts = new FinishedParts(dir, 'weights-a');
    batches = 0;
    const cut = await fourPasses(parts, () => batches >= 12); // 5 batches a pass: stops in pass 3
    expect(cut).toBe('interrupted');
    expect(readdirSync(join(dir, PARTS_DIR)).sort()).toEqual(['pass1.json', 'pass2.json']);
    batches = 0;
    const resumed = await fourPasses(parts);
    expect(batches).toBe(10); // passes 3 and 4 only
    if (whole === 'interrupted' || resumed === 'interrupted') throw new Error('interrupted');
    expect(resumed.passes).toEqual(whole.passes);
    expect(resumed.samples).toEqual(whole.samples);
    await parts.clear();
    expect(existsSync(join(dir, PARTS_DIR))).toBe(false);
  });

  it('other weights, settings or questions evaluate the part again; a damaged part is named', async () => {
    const dir = join(tmp, 'mismatch');
    const a = new FinishedParts(dir, 'weights-a');
    await fourPasses(a);
    batches = 0;
    await fourPasses(new FinishedParts(dir, 'weights-b'));
    expect(batches).toBe(20);
    const fewer = examples.slice(0, 8);
    expect(
      await a.read(
        'pass1',
        fewer.map((e) => e.id),
      ),
    ).toBeUndefined();
    writeFileSync(join(dir, PARTS_DIR, 'pass1.json'), '{"fingerprint": "weights-b", ');
    await expect(fourPasses(new FinishedParts(dir, 'weights-b'))).rejects.toThrow(/pass1\.json is not JSON.*delete it/);
    const file = join(tmp, 'w.bin');
    writeFileSync(file, 'weights');
    const f = await evaluationFingerprint(file, { batchSize: 8 }, 0);
    expect(await evaluationFingerprint(file, { batchSize: 8 }, 1)).not.toBe(f);
    expect(await evaluationFingerprint(file, { batchSize: 4 }, 0)).not.toBe(f);
    writeFileSync(file, 'weightz');
    expect(await evaluationFingerprint(file, { batchSize: 8 }, 0)).not.toBe(f);
  });

  it(
    'a run stopped during its controls resumes with its finished test sets and controls, then clears them',
    { timeout: 120_000 },
    async () => {
      const exp = validateExperiment(
        {
          name: 'parts',
          ...MICRO_SETTINGS,
          eval: { ...MICRO_SETTINGS.eval, curveEvery: 0, controls: ['zero', 'random'] },
          arms: [
            { name: 'soft', method: 'soft-embedding', config: { variant: 'soft-tokens', latentTokens: 2, steps: 2 } },
          ],
        },
        'parts.json',
      );
      const runs = join(tmp, 'runs');
      const dir = join(runs, 'parts', 'soft', 's0');
      const partsDir = join(dir, PARTS_DIR);
      const kept = () => (existsSync(partsDir) ? readdirSync(partsDir) : []);
      const cut = await runExperiment(exp, {
        runsDir: runs,
        quiet: true,
        log: () => {},
        shouldStop: () => kept().includes('control-zero.json'),
      });
      expect(cut.interrupted).toBe(true);
      const files = kept().sort();
      expect(files).toContain('main.json');
      expect(files).toContain('control-zero.json');
      expect(files).not.toContain('control-random.json');
      // Mark the kept main part: the resumed summary reports it, so it was reused, not re-evaluated.
      const main = JSON.parse(readFileSync(join(partsDir, 'main.json'), 'utf8'));
      main.result.reasoningLength = 123;
      writeFileSync(join(partsDir, 'main.json'), JSON.stringify(main));
      const resumed = await runExperiment(exp, { runsDir: runs, quiet: true, log: () => {} });
      expect(resumed.interrupted).toBe(false);
      const summary = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8'));
      expect(summary.reasoningLength).toBe(123);
      expect(Object.keys(summary.controls)).toEqual(['zero', 'random']);
      expect(existsSync(partsDir)).toBe(false);
    },
  );
});
