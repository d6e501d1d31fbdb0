import { describe, expect, it } from 'vitest';
import { parseExpr } from './expr.js';
import { stepsToExpression } from './format.js';
import { solveCountdown } from './solver.js';
import { sosFirstSolution, sosNaiveTreeSize } from './sos-dfs.js';
import { verifyCountdown, verifyExpression, verifySteps, type VerifyReason } from './verify.js';

const NUMS = [14, 34, 28, 4];
const T = 40;

describe('Countdown verifier', () => {
  it('accepts correct answers in every form, not only the reference', () => {
    expect(verifySteps(NUMS, T, ['14+34=48', '48/4=12', '28+12=40'], 'sos').ok).toBe(true);
    expect(verifyCountdown(NUMS, T, '14+34=48\n48/4=12\n28+12=40').ok).toBe(true);
    expect(verifyCountdown(NUMS, T, '14+34=48, 48/4=12, 28+12=40').ok).toBe(true);
    expect(verifyCountdown(NUMS, T, '28+(14+34)/4').ok).toBe(true);
    expect(verifyCountdown(NUMS, T, '(34 + 14) ÷ 4 + 28 = 40').ok).toBe(true);
    expect(verifyCountdown(NUMS, T, '28/14+4+34').ok).toBe(true); // another solution
    expect(verifyCountdown(NUMS, T, '(28 / 14 + 4) + 34').ok).toBe(true);
  });

  it.each<[string, string | string[], VerifyReason]>([
    ['empty answer', '', 'empty'],
    ['syntax', '28+(14+34/4', 'syntax'],
    ['stray character', '28+14#34', 'syntax'],
    ['non-integer literal', '28+(14+34)/4+0.5', 'bad-number'],
    ['a number not given', '28+(14+35)/4', 'numbers-mismatch'],
    ['a number used twice', '28+(14+14)/4+34-34', 'numbers-mismatch'],
    ['a number unused', '28+14-4+2', 'numbers-mismatch'],
    ['a number left out', '28+(14+34)', 'unused-numbers'],
    ['wrong value', '28+14+34+4', 'wrong-value'],
    ['claimed value not the target', '28+(14+34)/4=41', 'wrong-value'],
    ['negative intermediate (SoS)', '(4-14)+34+28', 'negative-intermediate'],
    ['inexact division (SoS)', '34/4+28+14', 'inexact-division'],
    ['step arithmetic wrong', ['14+34=48', '48/4=12', '28+12=41'], 'wrong-arithmetic'],
    ['step operand not available', ['14+34=48', '48/4=12', '28+13=41'], 'numbers-mismatch'],
    ['step reuses a consumed number', ['14+34=48', '14+4=18', '28+12=40'], 'numbers-mismatch'],
    ['steps leave numbers over', ['14+34=48', '48/4=12'], 'unused-numbers'],
    ['steps end elsewhere', ['14+34=48', '48-4=44', '44-28=16'], 'wrong-value'],
    ['step with a negative result (SoS)', ['4-14=-10', '34+28=62', '62--10=72'], 'negative-intermediate'],
    ['malformed step', ['14+34=48', 'then divide', '28+12=40'], 'syntax'],
  ])('rejects %s', (_, answer, reason) => {
    const v = verifyCountdown(NUMS, T, answer, 'sos');
    expect(v.ok).toBe(false);
    expect(v.reason).toBe(reason);
  });

  it('rejects a lone "." (or "+." …) as a syntax error instead of throwing', () => {
    for (const answer of ['.', '3+.', '(.)'])
      expect(verifyExpression([3, 5, 7], 15, answer, 'sos').reason).toBe('syntax');
  });

  it('rejects numbers and results beyond the exact integer range instead of throwing', () => {
    // A model wrote "1111111111111111111111" (1.1e22): the scorer threw and ended a whole experiment.
    expect(verifyExpression([3, 5, 7], 15, '1111111111111111111111+3', 'sos').reason).toBe('bad-number');
    expect(verifyExpression([3, 5, 7], 15, '(1111111111111111111111/3)+5', 'all-numbers').reason).toBe('bad-number');
    expect(verifyExpression([99999999, 99999999, 7], 15, '99999999*99999999*7', 'sos').reason).toBe('bad-number');
    expect(verifySteps([3, 5, 7], 15, ['1111111111111111111111+3=4'], 'sos').reason).toBe('bad-number');
    expect(verifySteps([99999999, 99999999], 15, ['99999999*99999999=1'], 'sos').reason).toBe('bad-number');
  });

  it('rejects division by zero', () => {
    expect(verifyExpression([3, 4, 4], 3, '3/(4-4)', 'sos').reason).toBe('division-by-zero');
    expect(verifyExpression([3, 4, 4], 3, '3/(4-4)', 'all-numbers').reason).toBe('division-by-zero');
    expect(verifySteps([3, 4, 4], 3, ['4-4=0', '3/0=0'], 'all-numbers').reason).toBe('division-by-zero');
  });

  it("allows negative and fractional intermediates under 'all-numbers' only", () => {
    // 24 from 1 3 4 6: 6/(1-3/4) — needs a fraction.
    expect(verifyExpression([1, 3, 4, 6], 24, '6/(1-3/4)', 'all-numbers').ok).toBe(true);
    expect(verifyExpression([1, 3, 4, 6], 24, '6/(1-3/4)', 'sos').reason).toBe('inexact-division');
    expect(verifyExpression([4, 14, 50], 40, '(4-14)+50', 'all-numbers').ok).toBe(true);
    expect(verifyExpression([4, 14, 50], 40, '(4-14)+50', 'sos').reason).toBe('negative-intermediate');
    expect(verifySteps([4, 14, 50], 40, ['4-14=-10', '-10+50=40'], 'all-numbers').ok).toBe(true);
  });

  it('parses precedence and associativity', () => {
    expect(verifyExpression([8, 4, 2], 1, '8/4/2', 'all-numbers').ok).toBe(true);
    expect(verifyExpression([8, 4, 2], 4, '8/(4/2)', 'all-numbers').ok).toBe(true);
    expect(verifyExpression([8, 4, 2], 2, '8-4-2', 'sos').ok).toBe(true);
    expect(parseExpr('2+3*4')).toEqual({
      kind: 'op',
      op: '+',
      left: { kind: 'num', text: '2' },
      right: { kind: 'op', op: '*', left: { kind: 'num', text: '3' }, right: { kind: 'num', text: '4' } },
    });
  });
});

describe('Countdown solvers', () => {
  it('SoS search returns the documented first solution (docs/datasets.md §8.1)', () => {
    expect(sosFirstSolution(NUMS, T)).toEqual(['14+34=48', '48/4=12', '28+12=40']);
    expect(stepsToExpression(NUMS, ['14+34=48', '48/4=12', '28+12=40'])).toBe('28+(14+34)/4');
    expect(sosFirstSolution([1, 1, 1], 100)).toBeNull();
  });

  it('the subset solver finds verified solutions and proves unsolvability', () => {
    const s = solveCountdown(NUMS, T)!;
    expect(verifyCountdown(NUMS, T, s.expression).ok).toBe(true);
    expect(verifyCountdown(NUMS, T, s.steps).ok).toBe(true);
    expect(solveCountdown([1, 1, 1], 100)).toBeNull();
    expect(solveCountdown([1, 3, 4, 6], 24, 'sos')).toBeNull();
    const frac = solveCountdown([1, 3, 4, 6], 24, 'all-numbers')!;
    expect(verifyCountdown([1, 3, 4, 6], 24, frac.expression, 'all-numbers').ok).toBe(true);
  });

  it('agrees with the SoS search on solvability of random instances', async () => {
    const { Rng } = await import('@telepath/core');
    const rng = new Rng(11);
    for (const n of [3, 4]) {
      for (let k = 0; k < 300; k++) {
        const nums = Array.from({ length: n }, () => 1 + rng.int(99));
        const target = 10 + rng.int(91);
        expect(solveCountdown(nums, target) !== null).toBe(sosFirstSolution(nums, target) !== null);
      }
    }
  });

  it("writes 'all-numbers' steps with fractions and negatives that the verifier reads back", async () => {
    const { Rng } = await import('@telepath/core');
    const rng = new Rng(12);
    let solved = 0;
    for (let k = 0; k < 150; k++) {
      const nums = Array.from({ length: 4 }, () => 1 + rng.int(99));
      const target = 10 + rng.int(91);
      const s = solveCountdown(nums, target, 'all-numbers');
      if (!s) continue;
      solved++;
      expect(verifyCountdown(nums, target, s.expression, 'all-numbers')).toMatchObject({ ok: true });
      expect(verifyCountdown(nums, target, s.steps, 'all-numbers')).toMatchObject({ ok: true });
      expect(stepsToExpression(nums, s.steps)).toBeTypeOf('string');
    }
    expect(solved).toBeGreaterThan(5);
    expect(verifySteps([28, 86, 33, 42], 96, ['28/42=(2/3)', '86/(2/3)=129', '129-33=96'], 'all-numbers').ok).toBe(
      true,
    );
    expect(verifySteps([28, 86, 33, 42], 96, ['28/42=(2/3)', '86/(2/3)=129', '129-33=96'], 'sos').reason).toBe(
      'inexact-division',
    );
  });

  it('naive tree sizes match docs/datasets.md §8.4', () => {
    expect([2, 3, 4, 5, 6].map(sosNaiveTreeSize)).toEqual([4, 48, 1152, 46080, 2764800]);
  });
});
