import { describe, expect, it } from 'vitest';
import { MICRO_SETTINGS } from '../testing.js';
import { validateExperiment } from './experiment.js';
import { onlyArms, parseArmList } from './only-arms.js';

const micro = validateExperiment(
  {
    name: 'micro',
    ...MICRO_SETTINGS,
    compareTo: ['no-cot', 'cot'],
    arms: [
      { name: 'no-cot', method: 'cot', config: { variant: 'no-cot', steps: 2 } },
      { name: 'cot', method: 'cot', config: { variant: 'cot', steps: 2 } },
      { name: 'more', method: 'cot', initFrom: 'cot', config: { variant: 'cot', steps: 2 } },
      { name: 'most', method: 'cot', initFrom: 'more', config: { variant: 'cot', steps: 2 } },
    ],
  },
  'micro.json',
);

describe('telepath run --arms', () => {
  it('keeps the named arms and every arm they start from, in the config order, and the baselines among them', () => {
    const cut = onlyArms(micro, ['most']);
    expect(cut.arms.map((a) => a.name)).toEqual(['cot', 'more', 'most']);
    expect(cut.compareTo).toEqual(['cot']);
    expect(onlyArms(micro, ['no-cot']).arms.map((a) => a.name)).toEqual(['no-cot']);
    expect(micro.arms).toHaveLength(4); // the experiment itself is left as it was
  });

  it('names an unknown arm and lists the real ones; rejects an empty name', () => {
    expect(() => onlyArms(micro, ['cot', 'nope'])).toThrow(
      '--arms: micro has no arm "nope". Its arms: no-cot, cot, more, most',
    );
    expect(parseArmList('cot, more')).toEqual(['cot', 'more']);
    expect(() => parseArmList('cot,,more')).toThrow('--arms: expected arm names separated by commas, got "cot,,more"');
  });
});
