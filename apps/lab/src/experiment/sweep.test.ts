import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../cli.js';
import { validateExperiment } from './experiment.js';
import { loadExperiment } from './load-experiment.js';
import { loadSweep } from './sweep.js';
import { MICRO_SETTINGS } from '../testing.js';

const MICRO = {
  name: 'micro',
  ...MICRO_SETTINGS,
  data: { ...MICRO_SETTINGS.data, testCount: 4 },
  arms: [{ name: 'no-cot', method: 'cot', config: { variant: 'no-cot', steps: 2 } }],
  sweep: { key: 'data.n', values: [3, 4] },
};

function write(config: object): string {
  const file = join(mkdtempSync(join(tmpdir(), 'sweep-cfg-')), 'micro.json');
  writeFileSync(file, JSON.stringify(config));
  return file;
}

describe('sweeps', () => {
  it('expand into one named experiment per value, with the value set at the key', async () => {
    const sweep = await loadSweep(write(MICRO), ['seeds=[1]']);
    expect(sweep).toMatchObject({ name: 'micro', key: 'data.n', label: 'n', values: [3, 4] });
    expect(sweep!.experiments.map((e) => e.name)).toEqual(['micro-n3', 'micro-n4']);
    expect(sweep!.experiments.map((e) => (e.data as { n: number }).n)).toEqual([3, 4]);
    expect(sweep!.experiments.every((e) => e.seeds[0] === 1)).toBe(true);
    const { sweep: _s, ...plain } = MICRO;
    expect(await loadSweep(write(plain))).toBeNull();
  });

  it('--set sweep.values changes the sweep itself (a subset of values), other --set keys each experiment', async () => {
    const sweep = await loadSweep(write({ ...MICRO, sweep: { key: 'data.n', values: [3, 4, 5] } }), [
      'sweep.values=[3,5]',
      'seeds=[2]',
    ]);
    expect(sweep!.values).toEqual([3, 5]);
    expect(sweep!.experiments.map((e) => e.name)).toEqual(['micro-n3', 'micro-n5']);
    expect(sweep!.experiments.every((e) => e.seeds[0] === 2)).toBe(true);
    await expect(loadSweep(write(MICRO), ['sweep.values=[3]'])).rejects.toThrow(
      /sweep: "values" must list at least two values/,
    );
  });

  it('reject a malformed sweep and refuse to load one as a plain experiment', async () => {
    await expect(loadSweep(write({ ...MICRO, sweep: { key: 'data.n', values: [3] } }))).rejects.toThrow(
      /micro.json: sweep: "values" must list at least two values/,
    );
    await expect(loadSweep(write({ ...MICRO, sweep: { key: 'arms.x', values: [3, 4] } }))).rejects.toThrow(
      /"key" must be a config path outside name and arms/,
    );
    await expect(loadSweep(write({ ...MICRO, sweep: { key: 'data.n', values: [3, 3] } }))).rejects.toThrow(
      /duplicate values/,
    );
    await expect(loadSweep(write({ ...MICRO, sweep: { key: 'data.n', values: [3, 4], step: 1 } }))).rejects.toThrow(
      /unknown key "step"/,
    );
    await expect(loadSweep(write({ ...MICRO, sweep: { key: 'data.n', values: [3, 9] } }))).rejects.toThrow(
      /micro.json data.n: Countdown takes 2 to 6 numbers, got 9/,
    ); // before any value runs
    await expect(loadExperiment(write(MICRO))).rejects.toThrow(/a sweep .*telepath run expands it/);
    expect(() => validateExperiment(MICRO, 'micro.json')).toThrow(/a sweep/);
  });

  it('telepath run runs every value and writes the accuracy of each arm against it', async () => {
    const runs = mkdtempSync(join(tmpdir(), 'sweep-runs-'));
    const log = console.log;
    const printed: string[] = [];
    console.log = (s: string) => printed.push(s);
    try {
      expect(await main(['run', write(MICRO), '--runs', runs, '--backend', 'cpu', '--quiet'])).toBe(0);
    } finally {
      console.log = log;
    }
    const summary = (n: number) =>
      JSON.parse(readFileSync(join(runs, `micro-n${n}`, 'no-cot', 's0', 'summary.json'), 'utf8'));
    const cell = (n: number) => `${(100 * summary(n).accuracy).toFixed(1)} ± ${(100 * summary(n).stderr).toFixed(1)}`;
    const md = readFileSync(join(runs, 'micro', 'sweep', 'sweep.md'), 'utf8');
    expect(md).toContain('|arm|n = 3|n = 4|');
    expect(md).toContain(`|no-cot|${cell(3)}|${cell(4)}|`);
    expect(summary(4).total).toBe(4);
    for (const f of ['sweep.csv', 'accuracy-vs-n.svg', 'accuracy-vs-n.png'])
      expect(existsSync(join(runs, 'micro', 'sweep', f)), f).toBe(true);
    expect(existsSync(join(runs, 'micro-n4', 'report', 'index.html'))).toBe(true);
    expect(printed.join('\n')).toContain('micro: accuracy against data.n');
  }, 60_000);

  describe('of experiment files', () => {
    const arm = (name: string, variant: string) => ({ name, method: 'cot', config: { variant, steps: 2 } });
    /** Two experiments with different recipes in one folder (n = 3 with two arms, n = 4 with one) and the sweep file. */
    function files(sweep: object, extra: object = {}): string {
      const one = write({
        ...MICRO_SETTINGS,
        name: 'micro3',
        arms: [arm('no-cot', 'no-cot'), arm('cot', 'cot')],
        compareTo: ['no-cot'],
      });
      const dir = dirname(one);
      const four = { ...MICRO_SETTINGS, name: 'micro4', data: { ...MICRO_SETTINGS.data, n: 4, testCount: 4 } };
      writeFileSync(
        join(dir, 'micro4.json'),
        JSON.stringify({ ...four, arms: [arm('no-cot', 'no-cot')], compareTo: ['no-cot'] }),
      );
      writeFileSync(join(dir, 'micro3.json'), readFileSync(one));
      const file = join(dir, 'branching.json');
      writeFileSync(file, JSON.stringify({ name: 'branching', description: 'd', sweep, ...extra }));
      return file;
    }
    const SWEEP = { key: 'data.n', experiments: ['micro3', 'micro4'] };

    it('load each file with the --set keys, the value read from it at the key', async () => {
      const sweep = await loadSweep(files(SWEEP), ['seeds=[2]']);
      expect(sweep).toMatchObject({ name: 'branching', key: 'data.n', label: 'n', values: [3, 4] });
      expect(sweep!.experiments.map((e) => e.name)).toEqual(['micro3', 'micro4']);
      expect(sweep!.experiments.map((e) => e.arms.length)).toEqual([2, 1]);
      expect(sweep!.experiments.every((e) => e.seeds[0] === 2)).toBe(true);
      const subset = await loadSweep(files(SWEEP), ['sweep.experiments=["micro4","micro3"]']);
      expect(subset!.values).toEqual([4, 3]);
    });

    it('reject settings of their own, a missing file, a repeated value and values beside files', async () => {
      await expect(loadSweep(files(SWEEP, { seeds: [1] }))).rejects.toThrow(
        /branching.json: a sweep of experiment files takes every setting from those files; remove "seeds"/,
      );
      await expect(loadSweep(files({ ...SWEEP, experiments: ['micro3', 'micro5'] }))).rejects.toThrow(
        /sweep.experiments names micro5, but .*micro5.json does not exist/,
      );
      await expect(loadSweep(files({ ...SWEEP, experiments: ['micro3', 'micro3'] }))).rejects.toThrow(
        /two of sweep.experiments have data.n = 3/,
      );
      await expect(loadSweep(files({ ...SWEEP, key: 'lm' }))).rejects.toThrow(
        /sweep.key lm is \{.*\} in micro3.json; expected a number or a short name/,
      );
      await expect(loadSweep(files({ ...SWEEP, values: [3, 4] }))).rejects.toThrow(
        /give "values" or "experiments", not both/,
      );
      await expect(loadSweep(files({ ...SWEEP, experiments: ['micro3'] }))).rejects.toThrow(
        /"experiments" must list at least two files/,
      );
    });

    it('telepath run: --arms picks in each file the arms it has; sweep.md adds the paired differences', async () => {
      const runs = mkdtempSync(join(tmpdir(), 'sweep-runs-'));
      const file = files(SWEEP);
      const log = console.log;
      console.log = () => {};
      try {
        expect(await main(['run', file, '--runs', runs, '--backend', 'cpu', '--quiet', '--arms', 'no-cot,cot'])).toBe(
          0,
        );
        await expect(
          main(['run', file, '--runs', runs, '--backend', 'cpu', '--quiet', '--arms', 'coconut']),
        ).rejects.toThrow(/--arms: no experiment of the sweep \(micro3, micro4\) has arm "coconut"/);
      } finally {
        console.log = log;
      }
      expect(existsSync(join(runs, 'micro4', 'cot'))).toBe(false);
      const md = readFileSync(join(runs, 'branching', 'sweep', 'sweep.md'), 'utf8');
      expect(md).toContain('|arm|n = 3|n = 4|');
      expect(md).toMatch(/\|cot\|\d+\.\d ± \d+\.\d\|–\|/);
      expect(md).toContain('Δ no-cot (points, paired');
      expect(md).toMatch(/\|cot\|[+-]\d+\.\d \[[+-]\d+\.\d, [+-]\d+\.\d\]\|–\|/);
      const deltas = md.slice(md.indexOf('Δ no-cot'));
      expect(deltas).not.toContain('|no-cot|'); // the baseline has no row of its own in its Δ table
      expect(deltas).not.toContain('|no-cot [val_target]|');
    }, 120_000);
  });
});
