import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
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
});
