/**
 * Arms that reuse another experiment's arm: validation (like-for-like settings, format, cycles) and
 * end to end — the source arm trains once, in the source's run directory, and shows in both tables.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { initBackend } from '@telepath/core';
import { beforeAll, describe, expect, it } from 'vitest';
import { validateExperiment } from './experiment.js';
import { loadExperiment } from './load-experiment.js';
import { onlyArms } from './only-arms.js';
import { readSummaries } from '../reports/report.js';
import { runExperiment } from '../running/run-experiment.js';
import { MICRO_SETTINGS } from '../testing.js';

beforeAll(async () => {
  await initBackend('cpu', { quiet: true });
});

const SETTINGS = MICRO_SETTINGS;
const BASE = {
  name: 'base',
  ...SETTINGS,
  arms: [
    { name: 'no-cot', method: 'cot', config: { variant: 'no-cot', steps: 3 } },
    { name: 'no-cot-more', method: 'cot', initFrom: 'no-cot', config: { variant: 'no-cot', steps: 2 } },
  ],
};
const USER = {
  name: 'user',
  ...SETTINGS,
  eval: { ...SETTINGS.eval, controls: ['zero'] }, // controls may differ
  arms: [
    { name: 'ref', reuse: 'base/no-cot-more' },
    {
      name: 'soft',
      method: 'soft-embedding',
      initFrom: 'ref',
      config: { variant: 'soft-tokens', latentTokens: 2, steps: 2 },
    },
  ],
};

describe('reused arms', () => {
  it('take method, config and initFrom from the source arm', () => {
    const exp = validateExperiment(USER, 'user.json', { base: BASE });
    expect(exp.arms[0]).toMatchObject({
      name: 'ref',
      method: 'cot',
      initFrom: 'no-cot',
      config: { variant: 'no-cot', steps: 2 },
    });
    expect(exp.arms[0].reuse?.experiment.name).toBe('base');
    expect(exp.arms[1].reuse).toBeNull();
  });

  it("end the --arms walk: their initFrom is the source experiment's arm, not this one's", () => {
    const exp = validateExperiment(USER, 'user.json', { base: BASE });
    expect(onlyArms(exp, ['soft']).arms.map((a) => a.name)).toEqual(['ref', 'soft']);
  });

  it('reject unlike settings, a bad reference, extra keys and cycles with a clear error', () => {
    expect(() =>
      validateExperiment({ ...USER, lm: { ...SETTINGS.lm, width: 32 } }, 'user.json', { base: BASE }),
    ).toThrow(/user\.json: arm "ref" reuses base\/no-cot-more, whose task, data, lm, train or eval settings differ/);
    expect(() => validateExperiment(USER, 'user.json', {})).toThrow(
      /"reuse": experiment "base" not found \(expected base\.json beside user\.json\)/,
    );
    const arms = (a: object) => ({ ...USER, arms: [a] });
    expect(() => validateExperiment(arms({ name: 'ref', reuse: 'base/cot' }), 'user.json', { base: BASE })).toThrow(
      /base has no arm "cot". Its arms: no-cot, no-cot-more/,
    );
    expect(() => validateExperiment(arms({ name: 'ref', reuse: 'base' }), 'user.json', { base: BASE })).toThrow(
      /expected "<experiment>\/<arm>"/,
    );
    expect(() =>
      validateExperiment(arms({ name: 'ref', reuse: 'base/no-cot', method: 'cot' }), 'user.json', { base: BASE }),
    ).toThrow(/takes its method, config and initFrom from base\/no-cot/);
    const a = { ...BASE, name: 'a', arms: [{ name: 'x', reuse: 'b/y' }] };
    const b = { ...BASE, name: 'b', arms: [{ name: 'y', reuse: 'a/x' }] };
    expect(() => validateExperiment(a, 'a.json', { a, b })).toThrow(/a → b → a is a cycle/);
  });

  it('loadExperiment reads the source experiment from the same folder', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'reuse-cfg-'));
    writeFileSync(join(dir, 'base.json'), JSON.stringify(BASE));
    writeFileSync(join(dir, 'user.json'), JSON.stringify(USER));
    const exp = await loadExperiment(join(dir, 'user.json'));
    expect(exp.arms[0].reuse?.arm).toBe('no-cot-more');
  });

  it('--set profile=<name> applies that profile to the experiment and to every source it reuses, under "-<name>" names', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'reuse-profile-'));
    const big = ['lm.width=32', 'train.batchSize=8'];
    writeFileSync(join(dir, 'base.json'), JSON.stringify({ ...BASE, profiles: { large: big } }));
    writeFileSync(
      join(dir, 'user.json'),
      JSON.stringify({ ...USER, profiles: { large: [...big, 'arms.soft.config.steps=5'] } }),
    );
    const exp = await loadExperiment(join(dir, 'user.json'), ['profile=large', 'seeds=[1]']);
    expect(exp.name).toBe('user-large');
    expect(exp.lm.width).toBe(32);
    expect(exp.train.batchSize).toBe(8);
    expect(exp.seeds).toEqual([1]);
    expect(exp.arms[1].config.steps).toBe(5);
    expect(exp.arms[0].reuse?.experiment.name).toBe('base-large');
    expect(exp.arms[0].reuse?.experiment.lm.width).toBe(32);
    expect((await loadExperiment(join(dir, 'user.json'))).lm.width).toBe(16); // the default profile is untouched
    await expect(loadExperiment(join(dir, 'user.json'), ['profile=huge'])).rejects.toThrow(
      /user.json: no profile "huge". Profiles: large/,
    );
    // A source without the profile cannot stay like for like: named in the error.
    writeFileSync(join(dir, 'base.json'), JSON.stringify(BASE));
    await expect(loadExperiment(join(dir, 'user.json'), ['profile=large'])).rejects.toThrow(
      /base.json \(reused by user.json\): no profile "large"/,
    );
    expect(() => validateExperiment({ ...BASE, profiles: { large: [3] } }, 'base.json')).toThrow(
      /profiles.large: expected a slug naming a list of "key=value" overrides/,
    );
  });

  it('train the source arm (and what it starts from) once, in the source run directory', async () => {
    const runs = mkdtempSync(join(tmpdir(), 'reuse-runs-'));
    const quiet = { quiet: true, log: () => {} };
    const user = validateExperiment(USER, 'user.json', { base: BASE });
    const lines: string[] = [];
    const first = await runExperiment(user, { runsDir: runs, quiet: true, log: (l) => lines.push(l) });
    expect(first.interrupted).toBe(false);
    // The source's first stage has no row in user's table: the run says it trains it first.
    expect(lines.filter((l) => l.includes('trains first'))).toEqual([
      '[telepath] trains first, though the table has no row for it (an arm starts from it): base/no-cot/s0 (3 steps)',
    ]);
    // After each job that trained, how many of the run's are done and the time left at that pace.
    expect(
      lines.filter((l) => l.includes('arms to train done')).map((l) => l.replace(/\b\d[\dhms]*[hms]\b/g, 'T')),
    ).toEqual([
      '[telepath] 1 of 3 arms to train done in T; ≈ T left at this pace',
      '[telepath] 2 of 3 arms to train done in T; ≈ T left at this pace',
      '[telepath] 3 of 3 arms to train done in T',
    ]);
    for (const arm of ['no-cot', 'no-cot-more'])
      expect(existsSync(join(runs, 'base', arm, 's0', 'sft.ckpt')), arm).toBe(true);
    expect(existsSync(join(runs, 'user', 'ref', 's0', 'sft.ckpt'))).toBe(false); // not trained twice
    expect(first.results.map((r) => [r.arm, r.experiment, r.reusedFrom])).toEqual([
      ['ref', 'user', 'base/no-cot-more'],
      ['soft', 'user', undefined],
    ]);
    // The soft tokens started from the reused arm's LM (initFrom resolves to the source directory).
    expect(existsSync(join(runs, 'user', 'soft', 's0', 'summary.json'))).toBe(true);
    const source = JSON.parse(readFileSync(join(runs, 'base', 'no-cot-more', 's0', 'summary.json'), 'utf8'));
    expect(first.results[0].accuracy).toBe(source.accuracy);
    // The source experiment now finds its arms finished; report rebuilds the user's table from records.
    const stamp = readFileSync(join(runs, 'base', 'no-cot-more', 's0', 'metrics.jsonl'), 'utf8');
    const base = await runExperiment(validateExperiment(BASE, 'base.json'), { runsDir: runs, ...quiet });
    expect(base.results[1].accuracy).toBe(source.accuracy);
    expect(readFileSync(join(runs, 'base', 'no-cot-more', 's0', 'metrics.jsonl'), 'utf8')).toBe(stamp);
    expect((await readSummaries(join(runs, 'user'))).map((r) => r.arm).sort()).toEqual(['ref', 'soft']);
  });

  it('train a reused arm whose initFrom is itself a reused arm, each in its own source directory', async () => {
    const runs = mkdtempSync(join(tmpdir(), 'reuse-chain-'));
    const top = { name: 'top', ...SETTINGS, arms: [{ name: 'soft-again', reuse: 'user/soft' }] };
    const exp = validateExperiment(top, 'top.json', { base: BASE, user: USER });
    const res = await runExperiment(exp, { runsDir: runs, quiet: true, log: () => {} });
    expect(res.results.map((r) => r.reusedFrom)).toEqual(['user/soft']);
    for (const d of ['base/no-cot', 'base/no-cot-more', 'user/soft'])
      expect(existsSync(join(runs, d, 's0', 'summary.json')), d).toBe(true);
    expect(existsSync(join(runs, 'user', 'ref'))).toBe(false); // 'ref' trains in base/, never under user/
  });
  it('read a finished source back without the arms before it in its chain (their records may be gone)', async () => {
    const runs = mkdtempSync(join(tmpdir(), 'reuse-finished-'));
    const quiet = { quiet: true, log: () => {} };
    const user = validateExperiment(USER, 'user.json', { base: BASE });
    await runExperiment(onlyArms(user, ['ref']), { runsDir: runs, ...quiet });
    rmSync(join(runs, 'base', 'no-cot'), { recursive: true }); // the first stage, not kept
    const res = await runExperiment(user, { runsDir: runs, ...quiet });
    expect(res.results.map((r) => r.arm)).toEqual(['ref', 'soft']);
    expect(existsSync(join(runs, 'base', 'no-cot'))).toBe(false); // not trained again
    // Forced, the source trains again, and so first what it starts from.
    await runExperiment(validateExperiment(BASE, 'base.json'), { runsDir: runs, ...quiet, force: true });
    expect(existsSync(join(runs, 'base', 'no-cot', 's0', 'summary.json'))).toBe(true);
  });
});
