import { describe, expect, it } from 'vitest';
import { countdownTask, countdownAllNumbersTask } from './task.js';
import { countdownTargets, generateCountdown } from './generate.js';
import { solveCountdown } from './solver.js';
import { verifyCountdown } from './verify.js';
import type { CountdownMeta } from './generate.js';

/** Every instance: the independent solver finds a solution, and the verifier accepts it and the generator's steps and answer. */
function checkAll(n: number, count: number, seed: number): void {
  const set = generateCountdown({ n, count, seed, split: 'train' });
  expect(set.length).toBe(count);
  let proved = 0;
  for (const ex of set) {
    const { nums, target } = ex.meta as CountdownMeta;
    expect(nums.length).toBe(n);
    const sol = solveCountdown(nums, target, 'sos');
    if (
      sol &&
      verifyCountdown(nums, target, sol.expression).ok &&
      verifyCountdown(nums, target, sol.steps).ok &&
      verifyCountdown(nums, target, ex.steps).ok &&
      verifyCountdown(nums, target, ex.answer).ok
    )
      proved++;
    else throw new Error(`${ex.id} ${nums.join(',')} → ${target} not proved solvable`);
  }
  expect(proved).toBe(count);
}

describe('Countdown generator', () => {
  it('holds out the same 9 of the 91 targets for every n and split', () => {
    const { train, heldOut } = countdownTargets();
    expect(train.length).toBe(82);
    expect(heldOut.length).toBe(9);
    expect(new Set([...train, ...heldOut]).size).toBe(91);
    for (const n of [3, 4]) {
      const vt = generateCountdown({ n, count: 50, seed: 1, split: 'val_target' });
      expect(vt.every((e) => heldOut.includes((e.meta as CountdownMeta).target))).toBe(true);
      const tr = generateCountdown({ n, count: 200, seed: 1, split: 'train' });
      expect(tr.every((e) => train.includes((e.meta as CountdownMeta).target))).toBe(true);
    }
  });

  it('is deterministic for a seed', () => {
    const a = generateCountdown({ n: 4, count: 20, seed: 5, split: 'train' });
    expect(generateCountdown({ n: 4, count: 20, seed: 5, split: 'train' })).toEqual(a);
    expect(generateCountdown({ n: 4, count: 20, seed: 6, split: 'train' })).not.toEqual(a);
    expect(a[0]).toMatchObject({ id: 'countdown/n4/train/0', meta: { rules: 'sos', n: 4, split: 'train' } });
    expect(a[0].steps.length).toBe(3);
  });

  it('val avoids the given train solutions', () => {
    const train = generateCountdown({ n: 3, count: 300, seed: 2, split: 'train' });
    const avoid = new Set(train.map((e) => e.steps.join(', ')));
    const val = generateCountdown({ n: 3, count: 100, seed: 2, split: 'val', avoidSolutions: avoid });
    expect(val.some((e) => avoid.has(e.steps.join(', ')))).toBe(false);
  });

  // Each takes 1-3 s idle and two to three times that on a loaded machine: a timeout of their own, not vitest's 5 s.
  const SOLVE_ALL_TIMEOUT_MS = 30_000;
  it('every one of 1,000 generated instances is solvable, n = 3', () => checkAll(3, 1000, 0), SOLVE_ALL_TIMEOUT_MS);
  it('every one of 1,000 generated instances is solvable, n = 4', () => checkAll(4, 1000, 0), SOLVE_ALL_TIMEOUT_MS);
  it(
    'every one of 300 generated instances is solvable, n = 5 (fewer: ≈ 4 ms each)',
    () => checkAll(5, 300, 0),
    SOLVE_ALL_TIMEOUT_MS,
  );
  it(
    'every one of 100 generated instances is solvable, n = 6 (fewer: ≈ 25 ms each)',
    () => checkAll(6, 100, 0),
    SOLVE_ALL_TIMEOUT_MS,
  );

  it('the task scores any valid answer after ###', () => {
    const [ex] = generateCountdown({ n: 4, count: 1, seed: 3, split: 'train' });
    expect(countdownTask.isCorrect(ex, `${ex.steps.join('\n')}\n### ${ex.answer}`)).toBe(true);
    expect(countdownTask.isCorrect(ex, '### 1+1')).toBe(false);
    expect(countdownAllNumbersTask.isCorrect(ex, `### ${ex.answer}`)).toBe(true);
    expect(() => countdownTask.isCorrect({ id: 'x', question: '', steps: [], answer: '' }, '### 1')).toThrow(
      /not a Countdown example/,
    );
  });
});
