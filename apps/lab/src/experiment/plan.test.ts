import { expect, it } from 'vitest';
import { validateExperiment } from './experiment.js';
import { armRunDir, neededJobs, planExperiment } from './plan.js';
import { MICRO_SETTINGS } from '../testing.js';

const BASE = {
  name: 'base',
  ...MICRO_SETTINGS,
  arms: [
    { name: 'no-cot', method: 'cot', config: { variant: 'no-cot', steps: 3 } },
    { name: 'no-cot-more', method: 'cot', initFrom: 'no-cot', config: { variant: 'no-cot', steps: 2 } },
  ],
};
const USER = {
  name: 'user',
  ...MICRO_SETTINGS,
  seeds: [0, 1],
  arms: [
    { name: 'ref', reuse: 'base/no-cot-more' },
    { name: 'again', reuse: 'base/no-cot-more' },
    {
      name: 'soft',
      method: 'soft-embedding',
      initFrom: 'ref',
      config: { variant: 'soft-tokens', latentTokens: 2, steps: 2 },
    },
    { name: 'plain', method: 'cot', config: { variant: 'no-cot', steps: 2 } },
  ],
};

it('resolves an experiment once into jobs: reused arms are their source job (once), each job after the one it starts from', () => {
  const plan = planExperiment(validateExperiment(USER, 'user.json', { base: BASE }));
  expect(plan.jobs.map((j) => [j.id, j.after])).toEqual([
    ['base/no-cot/s0', null],
    ['base/no-cot-more/s0', 'base/no-cot/s0'],
    ['base/no-cot/s1', null],
    ['base/no-cot-more/s1', 'base/no-cot/s1'],
    ['user/soft/s0', 'base/no-cot-more/s0'],
    ['user/soft/s1', 'base/no-cot-more/s1'],
    ['user/plain/s0', null],
    ['user/plain/s1', null],
  ]);
  expect(plan.jobs[1].exp.name).toBe('base'); // trains in the source experiment
  expect(plan.rows.map((r) => [r.arm.name, r.seed, r.job, r.reusedFrom ?? ''])).toEqual([
    ['ref', 0, 'base/no-cot-more/s0', 'base/no-cot-more'],
    ['ref', 1, 'base/no-cot-more/s1', 'base/no-cot-more'],
    ['again', 0, 'base/no-cot-more/s0', 'base/no-cot-more'],
    ['again', 1, 'base/no-cot-more/s1', 'base/no-cot-more'],
    ['soft', 0, 'user/soft/s0', ''],
    ['soft', 1, 'user/soft/s1', ''],
    ['plain', 0, 'user/plain/s0', ''],
    ['plain', 1, 'user/plain/s1', ''],
  ]);
});

it('armRunDir finds a reused arm in the run directory of the experiment that trains it', () => {
  const exp = validateExperiment(USER, 'user.json', { base: BASE });
  expect(armRunDir('/runs', exp, 'ref', 1)).toBe('/runs/base/no-cot-more/s1');
  expect(armRunDir('/runs', exp, 'soft', 0)).toBe('/runs/user/soft/s0');
});

it("needs every row's job and, for a job that will train, the job it starts from; a finished one needs nothing before it", () => {
  const plan = planExperiment(validateExperiment(USER, 'user.json', { base: BASE }));
  const ids = (willTrain: (id: string) => boolean) => neededJobs(plan, (j) => willTrain(j.id)).map((j) => j.id);
  expect(ids(() => true)).toEqual(plan.jobs.map((j) => j.id)); // nothing finished: every job
  // The reused source finished at seed 0: its first stage is not needed there, still at seed 1.
  const finished = new Set(['base/no-cot-more/s0']);
  expect(ids((id) => !finished.has(id))).toEqual([
    'base/no-cot-more/s0',
    'base/no-cot/s1',
    'base/no-cot-more/s1',
    'user/soft/s0',
    'user/soft/s1',
    'user/plain/s0',
    'user/plain/s1',
  ]);
});
