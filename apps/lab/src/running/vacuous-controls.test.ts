/**
 * Controls that cannot fail are not run: a soft-token arm (the same latents for every question)
 * evaluates zero and random but not shuffle, records why, and every table format says so in place
 * of the shuffle row; continuous thought, whose latents differ per question, runs all three. Every
 * control run records each question's score, and its row is paired with its own arm.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { initBackend } from '@telepath/core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { validateExperiment } from '../experiment/experiment.js';
import { OWN_ARM, resultsJson, tableMarkdown, tableText } from '../reports/table.js';
import { MICRO_SETTINGS } from '../testing.js';
import type { ArmSummary } from './arm-summary.js';
import { runExperiment } from './run-experiment.js';

const runs = mkdtempSync(join(tmpdir(), 'lab-vacuous-'));
beforeAll(async () => void (await initBackend('cpu', { quiet: true })));
afterAll(() => rmSync(runs, { recursive: true, force: true }));
const exp = () =>
  validateExperiment(
    {
      name: 'vacuous',
      ...MICRO_SETTINGS,
      eval: { ...MICRO_SETTINGS.eval, controls: ['zero', 'shuffle', 'random'] },
      arms: [
        { name: 'soft', method: 'soft-embedding', config: { variant: 'soft-tokens', latentTokens: 2, steps: 2 } },
        {
          name: 'coconut',
          method: 'soft-embedding',
          config: {
            variant: 'continuous-thought',
            latentTokens: 2,
            firstStage: 0,
            stepsPerStage: 1,
            finalStageSteps: 1,
          },
        },
      ],
    },
    'vacuous.json',
  );
const summary = (arm: string): ArmSummary =>
  JSON.parse(readFileSync(join(runs, 'vacuous', arm, 's0', 'summary.json'), 'utf8'));

it(
  'a vacuous control is skipped, recorded with its reason and named under the table',
  { timeout: 120_000 },
  async () => {
    const res = await runExperiment(exp(), { runsDir: runs, quiet: true, log: () => {} });

    expect(Object.keys(summary('soft').controls ?? {})).toEqual(['zero', 'random']);
    expect(summary('soft').vacuousControls).toEqual({
      shuffle: expect.stringMatching(/same vectors for every question/),
    });
    expect(Object.keys(summary('coconut').controls ?? {})).toEqual(['zero', 'shuffle', 'random']);
    expect(summary('coconut').vacuousControls).toBeUndefined();

    expect(res.rows.map((r) => r.arm)).not.toContain('soft [shuffle]');
    expect(res.rows.map((r) => r.arm)).toContain('coconut [shuffle]');
    const note = /soft \[shuffle\]: not run, vacuous: soft tokens are the same vectors/;
    expect(tableMarkdown(res.rows)).toMatch(note);
    expect(tableText(res.rows)).toMatch(note);
    const json = resultsJson('vacuous', res.results, res.rows) as { arms: { arm: string; vacuousControls?: object }[] };
    expect(json.arms.find((a) => a.arm === 'soft')!.vacuousControls).toEqual(summary('soft').vacuousControls);
    expect(readFileSync(join(runs, 'vacuous', 'table.md'), 'utf8')).toMatch(note);

    // Each control's per-question scores are recorded, so its row has a bootstrap ± and is paired with its own arm.
    const questions = summary('coconut').total;
    const zero = readFileSync(join(runs, 'vacuous', 'coconut', 's0', 'samples.control-zero.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { id: string; correct: boolean });
    expect(zero).toHaveLength(questions);
    expect(zero.filter((x) => x.correct).length).toBe(summary('coconut').controls!.zero.correct);
    const row = (arm: string) => res.rows.find((r) => r.arm === arm)!;
    for (const control of ['coconut [zero]', 'coconut [shuffle]', 'soft [random]']) {
      expect(row(control).spread, control).toBe('bootstrap');
      expect(row(control).paired.map((p) => p.baseline)).toEqual([OWN_ARM]);
    }
    const own = row('coconut [zero]').paired[0];
    expect(own.diff).toBeCloseTo(row('coconut [zero]').accuracy - row('coconut').accuracy, 12);
    expect(own.lo).toBeLessThanOrEqual(own.diff);
    expect(own.hi).toBeGreaterThanOrEqual(own.diff);
    expect(row('coconut').paired).toEqual([]); // no baselines named: the arm's own row has none
    expect(tableText(res.rows)).toContain('Δ own arm (pp, 95 %)');
  },
);

it("a record without its controls' per-question scores gains them on read-back, equal to the first evaluation; one that does not reproduce is left out once, with a warning", async () => {
  const file = (c: string) => join(runs, 'vacuous', 'coconut', 's0', `samples.control-${c}.jsonl`);
  const first = readFileSync(file('shuffle'), 'utf8');
  rmSync(file('shuffle'));
  rmSync(file('zero'));
  const recorded = summary('coconut');
  writeFileSync(
    join(runs, 'vacuous', 'coconut', 's0', 'summary.json'),
    JSON.stringify({
      ...recorded,
      controls: { ...recorded.controls, zero: { ...recorded.controls!.zero, correct: -1 } },
    }),
  );
  const lines: string[] = [];
  await runExperiment(exp(), { runsDir: runs, quiet: true, log: (l) => lines.push(l) });
  expect(readFileSync(file('shuffle'), 'utf8')).toBe(first);
  expect(existsSync(file('zero'))).toBe(false);
  expect(lines.join('\n')).toMatch(/coconut s0: control zero gave \d+ right on evaluating again against -1 recorded/);
  expect(summary('coconut').controlScoresUnreproduced).toEqual(['zero']);
  expect(summary('coconut').upgraded).toEqual([expect.stringMatching(/samples\.control-shuffle\.jsonl/)]);
  const again: string[] = [];
  await runExperiment(exp(), { runsDir: runs, quiet: true, log: (l) => again.push(l) });
  expect(again.filter((l) => l.includes('without retraining'))).toEqual([]); // not evaluated again
});
