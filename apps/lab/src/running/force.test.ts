/**
 * `telepath run --arms more --force` retrains `more`, not the arm it starts from: forcing an arm
 * named only as a starting point would overwrite the weights every later arm reads.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { initBackend } from '@telepath/core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { validateExperiment } from '../experiment/experiment.js';
import { onlyArms } from '../experiment/only-arms.js';
import { MICRO_SETTINGS } from '../testing.js';
import { runExperiment } from './run-experiment.js';

const runs = mkdtempSync(join(tmpdir(), 'force-'));
const quiet = { quiet: true, log: () => {} };
beforeAll(async () => void (await initBackend('cpu', { quiet: true })));
afterAll(() => rmSync(runs, { recursive: true, force: true }));

it('--force with --arms retrains the named arms only, not the arms they start from', { timeout: 120_000 }, async () => {
  const exp = validateExperiment(
    {
      name: 'forced',
      ...MICRO_SETTINGS,
      arms: [
        { name: 'cot', method: 'cot', config: { variant: 'cot', steps: 3 } },
        { name: 'more', method: 'cot', initFrom: 'cot', config: { variant: 'cot', steps: 2 } },
      ],
    },
    'forced.json',
  );
  await runExperiment(exp, { runsDir: runs, ...quiet });
  // wall seconds differ between two trainings of the same arm, so they tell a retrain apart
  const trained = (arm: string) =>
    (JSON.parse(readFileSync(join(runs, 'forced', arm, 's0', 'summary.json'), 'utf8')) as { trainSeconds: number })
      .trainSeconds;
  const before = { cot: trained('cot'), more: trained('more') };
  await runExperiment(onlyArms(exp, ['more']), { runsDir: runs, force: true, forceOnly: ['more'], ...quiet });
  expect(trained('cot')).toBe(before.cot);
  expect(trained('more')).not.toBe(before.more);
  await runExperiment(onlyArms(exp, ['more']), { runsDir: runs, force: true, ...quiet }); // without --arms: every arm
  expect(trained('cot')).not.toBe(before.cot);
});
