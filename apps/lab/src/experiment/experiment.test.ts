import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { armData, armTrain } from './arm-settings.js';
import { validateExperiment } from './experiment.js';
import { loadExperiment } from './load-experiment.js';

const BASE = {
  name: 'x',
  task: 'countdown',
  data: { n: 3 },
  arms: [{ name: 'cot', method: 'cot', config: { variant: 'cot', steps: 5 } }],
};

describe('experiment config', () => {
  it('fills defaults and validates the arm configs against the method', () => {
    const c = validateExperiment(BASE, 'x.json');
    expect(c.train.batchSize).toBe(32);
    expect((c.data as { trainCount: number }).trainCount).toBe(2000);
    expect(c.arms[0].config).toMatchObject({ variant: 'cot', steps: 5, maxNewTokens: 64 });
  });

  it('names the key and the valid choices for unknown keys, types, tasks and methods', () => {
    expect(() => validateExperiment({ ...BASE, trian: {} }, 'x.json')).toThrow(
      /x\.json: unknown config key "trian". Expected one of: name, description, task/,
    );
    expect(() => validateExperiment({ ...BASE, train: { batchSize: '8' } }, 'x.json')).toThrow(
      'x.json: config key "train.batchSize": expected number, got string ("8")',
    );
    expect(() => validateExperiment({ ...BASE, task: 'gsm9k' }, 'x.json')).toThrow(
      'x.json: "task": unknown task "gsm9k". Expected one of: countdown, gsm8k, prosqa',
    );
    expect(() => validateExperiment({ ...BASE, arms: [{ name: 'a', method: 'cott', config: {} }] }, 'x.json')).toThrow(
      /arms\[0\] \(a\) "method": unknown method "cott". Expected one of: cot/,
    );
    expect(() =>
      validateExperiment({ ...BASE, arms: [{ name: 'a', method: 'thought-comm', config: {} }] }, 'x.json'),
    ).toThrow(/experiment kind, not as an arm/);
    expect(() =>
      validateExperiment({ ...BASE, arms: [{ name: 'a', method: 'cot', config: { stepz: 1 } }] }, 'x.json'),
    ).toThrow(/arms\[0\] \(a\) config: unknown config key "stepz"/);
    expect(() => validateExperiment({ ...BASE, data: { n: 3, count: 5 } }, 'x.json')).toThrow(
      /x\.json data: unknown config key "count"/,
    );
    expect(() => validateExperiment({ ...BASE, arms: [BASE.arms[0], BASE.arms[0]] }, 'x.json')).toThrow(
      /duplicate arm name "cot"/,
    );
    expect(() => validateExperiment({ ...BASE, seeds: [] }, 'x.json')).toThrow(/seeds/);
  });

  it('takes baselines (compareTo) and heuristic arms, naming what is wrong', () => {
    const c = validateExperiment(
      {
        ...BASE,
        compareTo: ['cot'],
        arms: [...BASE.arms, { name: 'greedy', method: 'heuristic', config: { rule: 'greedy' } }],
      },
      'x.json',
    );
    expect(c.compareTo).toEqual(['cot']);
    expect(c.arms[1]).toMatchObject({ method: 'heuristic', config: { rule: 'greedy' }, initFrom: '' });
    expect(c.eval).toMatchObject({ curveEvery: 250, curveExamples: 64 });
    expect(() => validateExperiment({ ...BASE, compareTo: ['no-cot'] }, 'x.json')).toThrow(
      'x.json: compareTo: "no-cot" is not an arm. Arms: cot',
    );
    expect(() =>
      validateExperiment(
        { ...BASE, arms: [{ name: 'h', method: 'heuristic', config: { rule: 'less-mentioned' } }] },
        'x.json',
      ),
    ).toThrow(
      'x.json: arms[0] (h) config "rule": unknown heuristic "less-mentioned" for countdown. Expected one of: sum, greedy',
    );
    expect(() =>
      validateExperiment(
        {
          ...BASE,
          arms: [
            { name: 'h', method: 'heuristic', config: { rule: 'sum' } },
            { name: 'c', method: 'cot', initFrom: 'h', config: {} },
          ],
        },
        'x.json',
      ),
    ).toThrow(/starts from "h", a heuristic arm, which has no weights/);
    expect(() => validateExperiment({ ...BASE, eval: { curveEvery: -1 } }, 'x.json')).toThrow(
      /eval\.curveEvery must be an integer ≥ 0/,
    );
  });

  it("takes an arm's own data settings over the experiment's, validated as data", () => {
    const arms = [
      { name: 'a', method: 'cot', config: {} },
      { name: 'b', method: 'cot', config: {}, initFrom: 'a', data: { n: 4 } },
    ];
    const c = validateExperiment({ ...BASE, arms }, 'x.json');
    expect(c.arms[0].data).toBeUndefined();
    expect(c.arms[1].data).toEqual({ n: 4 });
    expect(armData(c, c.arms[1])).toMatchObject({ n: 4, trainCount: 2000 });
    expect(armData(c, c.arms[0])).toBe(c.data);
    expect(() => validateExperiment({ ...BASE, arms: [{ ...arms[0], data: { m: 1 } }] }, 'x.json')).toThrow(
      /arms\[0\] \(a\) data: unknown config key "m"/,
    );
    expect(() => validateExperiment({ ...BASE, arms: [{ ...arms[0], data: { n: 9 } }] }, 'x.json')).toThrow(
      /arms\[0\] \(a\) data.n: Countdown takes \d to 6 numbers, got 9/,
    );
    expect(() => validateExperiment({ ...BASE, arms: [{ ...arms[0], data: 3 }] }, 'x.json')).toThrow(
      /arms\[0\] \(a\) data: expected an object/,
    );
  });

  it('reads files, applies --set (arms by name) and reports unreadable files', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'exp-'));
    writeFileSync(join(dir, 'e.json'), JSON.stringify(BASE));
    const c = await loadExperiment(join(dir, 'e.json'), ['train.batchSize=8', 'arms.cot.config.steps=7', 'data.n=4']);
    expect(c.train.batchSize).toBe(8);
    expect(c.arms[0].config.steps).toBe(7);
    expect((c.data as { n: number }).n).toBe(4);
    await expect(loadExperiment(join(dir, 'e.json'), ['arms.nope.config.steps=7'])).rejects.toThrow(
      /no arm named "nope". Arms: cot/,
    );
    writeFileSync(join(dir, 'bad.json'), '{ "name": ');
    await expect(loadExperiment(join(dir, 'bad.json'))).rejects.toThrow(/bad\.json: not valid JSON/);
    await expect(loadExperiment(join(dir, 'missing.json'))).rejects.toThrow(/cannot read experiment .*missing\.json/);
  });
});

describe('per-arm LM settings', () => {
  it('override the experiment lm for that arm only; unknown keys and bad sizes are errors', () => {
    const c = validateExperiment(
      {
        ...BASE,
        arms: [...BASE.arms, { name: 'deep', method: 'cot', lm: { layers: 8 }, config: { variant: 'no-cot' } }],
      },
      'x.json',
    );
    expect(c.arms[0].lm).toBeUndefined();
    expect(c.arms[1].lm).toEqual({ layers: 8 });
    const arm = (lm: unknown) => ({ ...BASE, arms: [{ name: 'deep', method: 'cot', lm, config: {} }] });
    expect(() => validateExperiment(arm({ layer: 8 }), 'x.json')).toThrow(
      /arms\[0\] \(deep\) lm: unknown config key "layer". Expected one of: contextLength, positions, layers/,
    );
    expect(() => validateExperiment(arm({ width: 0 }), 'x.json')).toThrow(
      /deep\) lm: width must be a positive integer, got 0/,
    );
    expect(() => validateExperiment(arm(8), 'x.json')).toThrow(/deep\) lm: expected an object of LM settings/);
  });
});

describe('per-arm training settings', () => {
  it("override the experiment's train for that arm only, optimiser keys one by one; bad keys and values are errors", () => {
    const own = { batchSize: 8, optim: { warmupSteps: 7 } };
    const c = validateExperiment(
      { ...BASE, arms: [...BASE.arms, { name: 'b8', method: 'cot', train: own, config: { variant: 'no-cot' } }] },
      'x.json',
    );
    expect(c.arms[0].train).toBeUndefined();
    expect(c.arms[1].train).toEqual(own);
    expect(armTrain(c, c.arms[0])).toBe(c.train);
    const b8 = armTrain(c, c.arms[1]);
    expect(b8).toMatchObject({ batchSize: 8, logEvery: c.train.logEvery, checkpointEvery: c.train.checkpointEvery });
    expect(b8.optim).toEqual({ ...c.train.optim, warmupSteps: 7 });
    const arm = (train: unknown, extra = {}) => ({
      ...BASE,
      arms: [{ name: 't', method: 'cot', train, config: {}, ...extra }],
    });
    expect(() => validateExperiment(arm({ batch: 8 }), 'x.json')).toThrow(
      /arms\[0\] \(t\) train: unknown config key "batch". Expected one of: batchSize, logEvery/,
    );
    expect(() => validateExperiment(arm({ optim: { lr: 'high' } }), 'x.json')).toThrow(
      /\(t\) train: config key "optim.lr": expected number/,
    );
    expect(() => validateExperiment(arm({ batchSize: 0 }), 'x.json')).toThrow(
      /\(t\) train: batchSize must be a positive integer, got 0/,
    );
    expect(() => validateExperiment(arm({ checkpointEvery: 0 }), 'x.json')).toThrow(
      /\(t\) train: train\.checkpointEvery/,
    );
    expect(() => validateExperiment(arm([8]), 'x.json')).toThrow(
      /\(t\) train: expected an object of training settings/,
    );
    expect(() =>
      validateExperiment(
        { ...BASE, arms: [{ name: 'h', method: 'heuristic', train: { batchSize: 8 }, config: { rule: 'sum' } }] },
        'x.json',
      ),
    ).toThrow(/a heuristic arm trains nothing; remove "initFrom", "lm" and "train"/);
  });
});
