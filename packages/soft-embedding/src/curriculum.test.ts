import { describe, expect, it } from 'vitest';
import { Rng } from '@telepath/core';
import { resolveConfig } from './config.js';
import { curriculumPhases, exampleStage, finalStage, stageAt, stageLayout, stageOfPhase } from './curriculum.js';

// Coconut's GSM8K schedule in steps instead of epochs: c 2, 3 latent stages, 3 per stage, from the CoT model.
const gsm = resolveConfig({
  variant: 'continuous-thought',
  latentTokens: 6,
  thoughtsPerStep: 2,
  firstStage: 1,
  stepsPerStage: 3,
  finalStageSteps: 13,
});

describe('curriculum', () => {
  it('stageAt: firstStage + ⌊step / stepsPerStage⌋, capped at the final stage', () => {
    expect(finalStage(gsm)).toBe(4);
    expect(Array.from({ length: 12 }, (_, i) => stageAt(i, gsm))).toEqual([1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4]);
    expect(stageAt(1000, gsm)).toBe(4);
    const fromScratch = { ...gsm, firstStage: 0 };
    expect([0, 2, 3, 11, 12].map((s) => stageAt(s, fromScratch))).toEqual([0, 0, 1, 3, 4]);
    expect(stageAt(0, { ...gsm, stepsPerStage: 0 })).toBe(4); // w/o curriculum
    expect(() => stageAt(-1, gsm)).toThrow(/step must be an integer/);
  });

  it('phases: one per stage, sizes from stageAt, named stage<s>', () => {
    expect(curriculumPhases(gsm)).toEqual([
      { phase: 'stage1', stage: 1, steps: 3 },
      { phase: 'stage2', stage: 2, steps: 3 },
      { phase: 'stage3', stage: 3, steps: 3 },
      { phase: 'stage4', stage: 4, steps: 13 },
    ]);
    expect(curriculumPhases({ ...gsm, stepsPerStage: 0, finalStageSteps: 5 })).toEqual([
      { phase: 'stage4', stage: 4, steps: 5 },
    ]);
    expect(curriculumPhases({ ...gsm, finalStageSteps: 0 }).map((p) => p.stage)).toEqual([1, 2, 3]);
    expect(() => curriculumPhases({ ...gsm, stepsPerStage: 0, finalStageSteps: 0 })).toThrow(/no training steps/);
    expect(stageOfPhase('stage3')).toBe(3);
    expect(() => stageOfPhase('sft')).toThrow(/Expected stage<s>/);
  });

  it('totalSteps: every N_L trains the same number of steps, shared equally by its stages', () => {
    // GSM8K's Coconut arms: N_L 1 (c 1), 2, 4, 8 (c 2), 16 (c 4): 2 to 5 stages from stage 1.
    const arms = [
      [1, 1],
      [2, 2],
      [4, 2],
      [8, 2],
      [16, 4],
    ].map(([latentTokens, thoughtsPerStep]) =>
      resolveConfig({ variant: 'continuous-thought', latentTokens, thoughtsPerStep, totalSteps: 80 }),
    );
    const phases = arms.map((c) => curriculumPhases(c));
    expect(phases.map((p) => p.reduce((a, x) => a + x.steps, 0))).toEqual([80, 80, 80, 80, 80]);
    expect(phases.map((p) => p.length)).toEqual([2, 2, 3, 5, 5]);
    expect(phases[2]).toEqual([
      { phase: 'stage1', stage: 1, steps: 26 },
      { phase: 'stage2', stage: 2, steps: 26 },
      { phase: 'stage3', stage: 3, steps: 28 },
    ]);
    expect(phases[3].map((p) => p.steps)).toEqual([16, 16, 16, 16, 16]);
    expect(() =>
      resolveConfig({ variant: 'continuous-thought', latentTokens: 2, totalSteps: 80, stepsPerStage: 30 }),
    ).toThrow(/either totalSteps .* or stepsPerStage/);
  });

  it('stage s replaces the first s steps by s·c thoughts; past the last latent stage all steps go', () => {
    expect(stageLayout(0, 5, gsm)).toEqual({ thoughts: 0, removedSteps: 0 });
    expect(stageLayout(2, 5, gsm)).toEqual({ thoughts: 4, removedSteps: 2 });
    expect(stageLayout(3, 2, gsm)).toEqual({ thoughts: 6, removedSteps: 2 });
    expect(stageLayout(4, 5, gsm)).toEqual({ thoughts: 6, removedSteps: 5 });
  });

  it('uniform mixing draws stages 0..nSteps with probability uniformProb', () => {
    const rng = new Rng(0);
    expect(Array.from({ length: 20 }, () => exampleStage(3, 4, 0, rng))).toEqual(new Array(20).fill(3));
    const drawn = Array.from({ length: 2000 }, () => exampleStage(9, 4, 0.5, rng));
    const scheduled = drawn.filter((s) => s === 9).length / drawn.length;
    expect(scheduled).toBeGreaterThan(0.45);
    expect(scheduled).toBeLessThan(0.55);
    expect(new Set(drawn.filter((s) => s !== 9))).toEqual(new Set([0, 1, 2, 3, 4]));
  });
});
