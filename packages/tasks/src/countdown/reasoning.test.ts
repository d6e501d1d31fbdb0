import { describe, expect, it } from 'vitest';
import { generateCountdown, type CountdownMeta } from './generate.js';
import { stepsToExpression } from './format.js';
import {
  isJudgedProduct,
  isLongProduct,
  renderCountdown,
  reverseDigitRuns,
  searchTrace,
  stateLines,
  type CountdownReasoning,
  type SearchOrder,
} from './reasoning.js';
import { countdownTask } from './task.js';
import { sosFirstSolution } from './sos-dfs.js';
import { verifyTrace } from './trace-check.js';

const N = [3, 4];
const PLAIN = { maxBacks: 4, writeChecks: false, order: 'closest' } as const;
const CHECKED = { ...PLAIN, writeChecks: true } as const;

/**
 * The moves a trace tries at its start state (the first line and each line after "back [start]"),
 * as bare steps, each with its listed rank there: pair index (pairs left to right) × 4 + the
 * operation's place in + * - /. The numbers must be distinct, or a step's pair is ambiguous.
 */
function startTries(nums: readonly number[], lines: readonly string[]): { step: string; rank: number }[] {
  const pairs: string[] = [];
  for (let i = 0; i < nums.length; i++) for (let j = i + 1; j < nums.length; j++) pairs.push(`${nums[i]} ${nums[j]}`);
  return lines
    .filter((l, i) => i === 0 || lines[i - 1] === `back [${nums.join(' ')}]`)
    .map((l) => {
      const step = l.split(' [')[0];
      const [, a, op, b] = /^(\d+)([-+*/])(\d+)=/.exec(step)!;
      const pair = pairs.findIndex((p) => p === `${a} ${b}` || p === `${b} ${a}`);
      return { step, rank: pair * 4 + '+*-/'.indexOf(op) };
    });
}

describe('Countdown reasoning formats', () => {
  it('writes the state after every step, the new result first', () => {
    expect(stateLines([29, 11, 62], ['29-11=18', '62-18=44'])).toEqual(['29-11=18 [18 62]', '62-18=44 [44]']);
    expect(() => stateLines([29, 11, 62], ['29-12=17'])).toThrow(/12 .* not available/);
  });

  for (const n of N) {
    it(`every 'state', 'search' and 'search-check' (closest-first, listed and products-last), 'search-judged', 'search-guided' and 'search-guess' trace of 1,000 Countdown-${n} instances is sound under the task's checker, plain and reversed`, () => {
      const base = generateCountdown({ n, count: 1000, seed: 7, split: 'train' });
      let backs = 0;
      for (const ex of base) {
        for (const [reasoning, searchOrder] of [
          ['state', 'closest'],
          ['search', 'closest'],
          ['search-check', 'closest'],
          ['search-check', 'listed'],
          ['search-check', 'products-last'],
          ['search-judged', 'closest'],
          ['search-judged', 'products-last'],
          ['search-guided', 'products-last'],
          ['search-guess', 'products-last'],
        ] as [CountdownReasoning, SearchOrder][]) {
          for (const numberFormat of ['plain', 'reversed'] as const) {
            const r = renderCountdown(ex, { reasoning, numberFormat, maxBacks: 4, searchOrder });
            const v = countdownTask.checkReasoning!(r, r.steps.join('\n'));
            if (!v.ok) throw new Error(`${ex.id} ${reasoning}/${numberFormat}: ${v.detail}\n${r.steps.join('\n')}`);
            expect(countdownTask.isCorrect(r, `### ${r.answer}`)).toBe(true);
            if (numberFormat === 'plain' && reasoning === 'search')
              backs += r.steps.filter((l) => l.startsWith('back')).length;
          }
        }
      }
      expect(backs).toBeGreaterThan(500); // the search traces do show dead ends and backtracking
    });

    it(`every rejecting ('rejectInexact') products-last search-check, search-judged, search-guided and search-guess trace of 1,000 Countdown-${n} instances is sound, plain and reversed`, () => {
      let rejected = 0;
      for (const ex of generateCountdown({ n, count: 1000, seed: 7, split: 'train' })) {
        for (const reasoning of ['search-check', 'search-judged', 'search-guided', 'search-guess'] as const) {
          for (const numberFormat of ['plain', 'reversed'] as const) {
            const o = {
              reasoning,
              numberFormat,
              maxBacks: 4,
              searchOrder: 'products-last',
              rejectInexact: true,
            } as const;
            const r = renderCountdown(ex, o);
            const v = countdownTask.checkReasoning!(r, r.steps.join('\n'));
            if (!v.ok) throw new Error(`${ex.id} ${reasoning}/${numberFormat}: ${v.detail}\n${r.steps.join('\n')}`);
            expect(countdownTask.isCorrect(r, `### ${r.answer}`)).toBe(true);
            rejected += r.steps.filter((l) => /^\d+\/\d+ x$/.test(l)).length;
          }
        }
      }
      expect(rejected).toBeGreaterThan(400); // the traces do reject divisions
    });
  }

  it("a 'search-guided' Countdown-4 trace enters a move with a solution, after a detour into one without in about a quarter of the traces, the same for the same problem", () => {
    const o = {
      reasoning: 'search-guided',
      numberFormat: 'plain',
      maxBacks: 12,
      searchOrder: 'products-last',
      rejectInexact: true,
    } as const;
    const base = generateCountdown({ n: 4, count: 1000, seed: 7, split: 'train' });
    let detours = 0;
    for (const ex of base) {
      const { nums, target } = ex.meta as CountdownMeta;
      const r = renderCountdown(ex, o);
      expect(renderCountdown(ex, o).steps).toEqual(r.steps);
      const top = `back [${nums.join(' ')}]`;
      const backToTop = r.steps.indexOf(top);
      // The move entered from the top: the first line, or the one after the detour's "back".
      const entered = backToTop < 0 ? r.steps[0] : r.steps[backToTop + 1];
      const after = (line: string) => /\[([^\]]*)\]/.exec(line)![1].split(' ').map(Number);
      expect(sosFirstSolution(after(entered), target)).not.toBeNull();
      if (backToTop > 0) {
        detours++;
        expect(sosFirstSolution(after(r.steps[0]), target)).toBeNull(); // the detour had no solution
        expect(r.steps.lastIndexOf(top)).toBe(backToTop); // one detour, then never back to the top
      }
    }
    expect(detours / base.length).toBeGreaterThan(0.2);
    expect(detours / base.length).toBeLessThan(0.3);
  });

  it("a 'search-guess' Countdown-4 trace tries the moves from the four numbers in order, one closest path below each, until one reaches the target", () => {
    const o = {
      reasoning: 'search-guess',
      numberFormat: 'plain',
      maxBacks: 24,
      searchOrder: 'products-last',
      rejectInexact: true,
    } as const;
    const bracket = (line: string) => /\[([^\]]*)\]/.exec(line)![1].split(' ').map(Number);
    let misses = 0;
    for (const ex of generateCountdown({ n: 4, count: 300, seed: 7, split: 'train' })) {
      const { nums, target } = ex.meta as CountdownMeta;
      const top = `back [${nums.join(' ')}]`;
      // Each try: a move from the four numbers, a move from the three, the check on the two.
      const tries: string[][] = [[]];
      for (const line of renderCountdown(ex, o).steps) {
        if (line === top) tries.push([]);
        else if (!/^\d+\/\d+ x$/.test(line)) tries[tries.length - 1].push(line);
      }
      for (const [i, [move, guess, check]] of tries.entries()) {
        const three = bracket(move);
        expect(three).toHaveLength(3);
        const last = bracket(check)[0];
        // The guess is the closest path through the three numbers: the target when they have a solution.
        expect(last === target).toBe(i === tries.length - 1);
        expect(sosFirstSolution(three, target) !== null).toBe(last === target);
        expect(bracket(guess)).toHaveLength(2);
      }
      misses += tries.length - 1;
    }
    expect(misses / 300).toBeGreaterThan(2); // 3.9 misses a trace over 1,000 (trace-stats --n 4 --guess)
  });

  it('search traces try, hit dead ends, go back, and stay within the budget of dead ends', () => {
    const { lines, outOfBudget } = searchTrace([91, 80, 87, 6], 92, ['91-80=11', '87-6=81', '81+11=92'], {
      ...PLAIN,
      maxBacks: 4,
    });
    expect(outOfBudget).toBe(true);
    expect(lines.filter((l) => l.startsWith('back')).length).toBe(5); // 4 dead ends, then back to the start
    expect(lines[lines.length - 4]).toBe('back [91 80 87 6]');
    expect(lines.slice(-3)).toEqual(['91-80=11 [11 87 6]', '87-6=81 [81 11]', '81+11=92 [92]']);
    expect(verifyTrace([91, 80, 87, 6], 92, lines, 'sos').ok).toBe(true);
  });

  it('a search-check trace writes the closest move of every two-number dead end, then goes back; otherwise the same search', () => {
    // 29+11=40 leaves [40 62]: no move makes 44, the closest is 62-40=22; then 62-29=33 [33 11] → 33+11=44.
    const plain = searchTrace([29, 11, 62], 44, ['62-29=33', '33+11=44'], { ...PLAIN, maxBacks: 4 });
    const checked = searchTrace([29, 11, 62], 44, ['62-29=33', '33+11=44'], { ...CHECKED, maxBacks: 4 });
    expect(checked.solution).toEqual(plain.solution);
    const dead = plain.lines.filter((l) => l.startsWith('back')).length;
    expect(dead).toBeGreaterThan(0);
    expect(checked.lines.length).toBe(plain.lines.length + dead); // one check line per dead end
    expect(verifyTrace([29, 11, 62], 44, checked.lines, 'sos').ok).toBe(true);
    for (const [i, l] of checked.lines.entries()) {
      if (!l.startsWith('back')) continue;
      const check = checked.lines[i - 1]; // a one-number state that is not the target
      expect(check).toMatch(/=(\d+) \[\1\]$/);
      expect(check.endsWith(' [44]')).toBe(false);
    }
    // Over many instances: each dead end's check line is the closest result of its pair, never the target.
    for (const e of generateCountdown({ n: 3, count: 300, seed: 5, split: 'train' })) {
      const m = e.meta as CountdownMeta;
      const t = searchTrace(m.nums, m.target, e.steps, { ...CHECKED, maxBacks: 12 });
      expect(t.lines.filter((l) => / \[\d+\]$/.test(l)).length).toBe(
        t.lines.filter((l) => l.startsWith('back')).length + 1,
      );
      expect(verifyTrace(m.nums, m.target, t.lines, 'sos').ok).toBe(true);
    }
  });

  it('a listed search tries the moves of a state in SoS order (pairs left to right, + * - /), each after the last one tried', () => {
    const listed = { ...CHECKED, order: 'listed' } as const;
    expect(searchTrace([29, 11, 62], 44, ['62-29=33', '33+11=44'], listed).lines).toEqual([
      '29+11=40 [40 62]',
      '62-40=22 [22]',
      'back [29 11 62]',
      '29*11=319 [319 62]',
      '319-62=257 [257]', // the closest of 381, 19778, 257
      'back [29 11 62]',
      '29-11=18 [18 62]',
      '62-18=44 [44]',
    ]);
    // Over many instances: at each state the tries are a prefix of its listed moves, in order.
    for (const e of generateCountdown({ n: 4, count: 200, seed: 9, split: 'train' })) {
      const m = e.meta as CountdownMeta;
      if (new Set(m.nums).size < m.nums.length) continue; // a repeated number makes a step's pair ambiguous
      const t = searchTrace(m.nums, m.target, e.steps, { ...listed, maxBacks: 1000 }); // never out of budget
      expect(verifyTrace(m.nums, m.target, t.lines, 'sos').ok).toBe(true);
      const order = startTries(m.nums, t.lines).map((x) => x.rank);
      expect(order).toEqual([...order].sort((x, y) => x - y));
      expect(new Set(order).size).toBe(order.length);
    }
  });

  it('a products-last search tries the listed moves, every product of two numbers ≥ 10 after all the others', () => {
    const productsLast = { ...CHECKED, order: 'products-last' } as const;
    // The listed search above wrote 29*11=319 second; here it waits behind every other move.
    expect(searchTrace([29, 11, 62], 44, ['62-29=33', '33+11=44'], productsLast).lines).toEqual([
      '29+11=40 [40 62]',
      '62-40=22 [22]',
      'back [29 11 62]',
      '29-11=18 [18 62]',
      '62-18=44 [44]',
    ]);
    // A product with a one-digit factor keeps its listed place: 7*11 is tried second.
    expect(searchTrace([7, 11, 60], 17, ['7*11=77', '77-60=17'], productsLast).lines).toEqual([
      '7+11=18 [18 60]',
      '60-18=42 [42]',
      'back [7 11 60]',
      '7*11=77 [77 60]',
      '77-60=17 [17]',
    ]);
    // Over many instances: at each state the tries follow the listed order within each group, and
    // no long product comes before a move that is not one.
    const isLong = (step: string) => /^(\d\d+)\*(\d\d+)=/.test(step);
    let longTried = 0;
    for (const e of generateCountdown({ n: 4, count: 200, seed: 9, split: 'train' })) {
      const m = e.meta as CountdownMeta;
      if (new Set(m.nums).size < m.nums.length) continue; // a repeated number makes a step's pair ambiguous
      const t = searchTrace(m.nums, m.target, e.steps, { ...productsLast, maxBacks: 1000 });
      expect(verifyTrace(m.nums, m.target, t.lines, 'sos').ok).toBe(true);
      const tried = startTries(m.nums, t.lines);
      const rank = tried.map((x) => (isLong(x.step) ? 1000 : 0) + x.rank);
      expect(rank).toEqual([...rank].sort((x, y) => x - y));
      longTried += tried.filter((x) => isLong(x.step)).length;
    }
    expect(longTried).toBeGreaterThan(0); // the long products are tried, last
  });

  it('a judged search marks moves into unsolvable three-number states " x" without entering them', () => {
    const judged = { ...CHECKED, order: 'products-last', judge: true, maxBacks: 12 } as const;
    expect(searchTrace([91, 80, 87, 6], 92, ['91-80=11', '87-6=81', '81+11=92'], judged)).toEqual({
      lines: ['91+80=171 [171 87 6] x', '91-80=11 [11 87 6]', '11+87=98 [98 6]', '98-6=92 [92]'],
      solution: ['91-80=11', '11+87=98', '98-6=92'],
      outOfBudget: false,
    });
    // At n = 3 nothing is judged: the trace is search-check's.
    for (const e of generateCountdown({ n: 3, count: 200, seed: 5, split: 'train' })) {
      const m = e.meta as CountdownMeta;
      expect(searchTrace(m.nums, m.target, e.steps, judged)).toEqual(
        searchTrace(m.nums, m.target, e.steps, { ...judged, judge: false }),
      );
    }
    // At n = 4: every judged state has no solution, every entered one at the top has one, and the
    // search never runs out of its 12 dead ends, so it never jumps to a solution it did not find.
    let marks = 0;
    for (const e of generateCountdown({ n: 4, count: 200, seed: 9, split: 'train' })) {
      const m = e.meta as CountdownMeta;
      const t = searchTrace(m.nums, m.target, e.steps, judged);
      expect(t.lines).not.toContain(`back [${m.nums.join(' ')}]`);
      for (const l of t.lines.filter((x) => x.endsWith(' x'))) {
        const state = /\[([\d ]+)\] x$/.exec(l)![1].split(' ').map(Number);
        expect(state).toHaveLength(3);
        expect(sosFirstSolution(state, m.target)).toBeNull();
        marks++;
      }
      expect(verifyTrace(m.nums, m.target, t.lines, 'sos').ok).toBe(true);
    }
    expect(marks).toBeGreaterThan(400);
  });

  it('a rejecting search writes an inexact division "a/b x" in the place of ÷ and goes on; otherwise the same search', () => {
    const rejecting = { ...CHECKED, order: 'products-last', rejectInexact: true } as const;
    // 34/19 is not exact: written after the pair's + and −, without entering anything.
    expect(searchTrace([19, 34, 17], 17, ['19-17=2', '34/2=17'], rejecting).lines).toEqual([
      '19+34=53 [53 17]',
      '53-17=36 [36]',
      'back [19 34 17]',
      '34-19=15 [15 17]',
      '15+17=32 [32]',
      'back [19 34 17]',
      '34/19 x',
      '19+17=36 [36 34]',
      '36-34=2 [2]',
      'back [19 34 17]',
      '19-17=2 [2 34]',
      '34/2=17 [17]',
    ]);
    // Without the rejected lines (and a "back" straight before one) it is the search it was, where
    // the budget of dead ends allows; every rejected division is of two numbers of its state.
    for (const e of generateCountdown({ n: 3, count: 300, seed: 11, split: 'train' })) {
      const m = e.meta as CountdownMeta;
      const lines = searchTrace(m.nums, m.target, e.steps, { ...rejecting, maxBacks: 1000 }).lines;
      const kept = lines.filter((l, i) => !/ x$/.test(l) && !(l.startsWith('back') && / x$/.test(lines[i + 1] ?? '')));
      const plain = searchTrace(m.nums, m.target, e.steps, {
        ...rejecting,
        rejectInexact: false,
        maxBacks: 1000,
      }).lines;
      expect(kept.filter((l) => !l.startsWith('back'))).toEqual(plain.filter((l) => !l.startsWith('back')));
    }
    expect(() => searchTrace([19, 34, 17], 17, ['19-17=2', '34/2=17'], { ...rejecting, order: 'closest' })).toThrow(
      /rejectInexact needs the 'listed' or 'products-last' order/,
    );
  });

  it('the checker accepts a rejected division only when it is inexact and of two numbers of the state', () => {
    const start = [19, 34, 17];
    const solved = ['19-17=2 [2 34]', '34/2=17 [17]'];
    expect(verifyTrace(start, 17, ['34/19 x', ...solved], 'sos').ok).toBe(true);
    expect(verifyTrace(start, 17, ['34/17 x', ...solved], 'sos')).toMatchObject({
      ok: false,
      reason: 'wrong-judgement',
      detail: expect.stringMatching(/34\/17=2 is exact/),
    });
    expect(verifyTrace(start, 17, ['34/4 x', ...solved], 'sos')).toMatchObject({ reason: 'numbers-mismatch' });
    // After a move the state changes: 19 is gone from [2 34].
    expect(verifyTrace(start, 17, ['19-17=2 [2 34]', '34/19 x', '34/2=17 [17]'], 'sos')).toMatchObject({
      reason: 'numbers-mismatch',
    });
  });

  for (const n of N) {
    it(`a products-judging ('judgeLongProducts') search of 1,000 Countdown-${n} instances writes each long product with no solution below it as "a*b x", computes only those on its path (the guessing search aside), and is sound, plain and reversed`, () => {
      let judged = 0;
      for (const ex of generateCountdown({ n, count: 1000, seed: 7, split: 'train' })) {
        const m = ex.meta as CountdownMeta;
        for (const reasoning of ['search-check', 'search-guided', 'search-guess'] as const) {
          const o = {
            reasoning,
            maxBacks: 4,
            searchOrder: 'products-last',
            rejectInexact: true,
            judgeLongProducts: true,
          } as const;
          for (const numberFormat of ['plain', 'reversed'] as const) {
            const r = renderCountdown(ex, { ...o, numberFormat });
            const v = countdownTask.checkReasoning!(r, r.steps.join('\n'));
            if (!v.ok) throw new Error(`${ex.id} ${reasoning}/${numberFormat}: ${v.detail}\n${r.steps.join('\n')}`);
            expect(countdownTask.isCorrect(r, `### ${r.answer}`)).toBe(true);
          }
          if (reasoning === 'search-guess') continue; // a guessed path that misses may compute a long product
          // With no budget to run out of, every long product entered (its state still has two
          // numbers or more) is a step of the path found; a two-number dead end's check line is not entered.
          const t = searchTrace(m.nums, m.target, ex.steps, {
            maxBacks: 1000,
            writeChecks: true,
            order: 'products-last',
            rejectInexact: true,
            judgeLongProducts: true,
            guided: reasoning === 'search-guided',
          });
          const entered = t.lines.filter((l) => isLongProduct(l) && / \[\d+ [\d ]+\]$/.test(l));
          expect(entered.map((l) => l.split(' [')[0])).toEqual(t.solution.slice(0, -1).filter(isLongProduct));
          judged += t.lines.filter(isJudgedProduct).length;
        }
      }
      // The traces do judge products: at n = 3 a search rarely reaches a state's products (20 here),
      // at n = 4 it passes several per trace (9,925 here).
      expect(judged).toBeGreaterThan(n === 3 ? 10 : 5000);
    });
  }

  it('the checker accepts a judged product "a*b x" only when its state has no solution and its numbers are in the state', () => {
    // [12 10 76] reaches 44 by 12*10=120, 120-76=44; [29 11 62] by 62-29=33, 33+11=44.
    const solved = ['12*10=120 [120 76]', '120-76=44 [44]'];
    expect(verifyTrace([12, 10, 76], 44, ['10*76 x', ...solved], 'sos').ok).toBe(true);
    expect(verifyTrace([12, 10, 76], 44, ['12*10 x', ...solved], 'sos')).toMatchObject({
      ok: false,
      reason: 'wrong-judgement',
      detail: expect.stringMatching(/\[120 76\] reaches 44/),
    });
    expect(verifyTrace([12, 10, 76], 44, ['12*11 x', ...solved], 'sos')).toMatchObject({ reason: 'numbers-mismatch' });
    expect(verifyTrace([29, 11, 62], 44, ['29*11 x', '62-29=33 [33 11]', '33+11=44 [44]'], 'sos').ok).toBe(true);
    expect(() =>
      searchTrace([29, 11, 62], 44, [], { maxBacks: 4, writeChecks: true, order: 'listed', judgeLongProducts: true }),
    ).toThrow(/judgeLongProducts needs the 'products-last' order/);
  });

  it('the checker rejects a judged move whose state has a solution, and checks its arithmetic', () => {
    // [11 87 6] reaches 92 (11+87=98, 98-6=92), so it may not be marked a dead end.
    const wrong = verifyTrace([91, 80, 87, 6], 92, ['91-80=11 [11 87 6] x', '91+80=171 [171 87 6]'], 'sos');
    expect(wrong).toMatchObject({ ok: false, reason: 'wrong-judgement' });
    expect(wrong.detail).toMatch(/\[11 87 6\] reaches 92/);
    expect(verifyTrace([91, 80, 87, 6], 92, ['91+80=170 [170 87 6] x'], 'sos')).toMatchObject({
      reason: 'wrong-arithmetic',
    });
    expect(verifyTrace([91, 80, 87, 6], 92, ['91+80=171 [171 87] x'], 'sos')).toMatchObject({ reason: 'wrong-state' });
    const right = ['91+80=171 [171 87 6] x', '91-80=11 [11 87 6]', '11+87=98 [98 6]', '98-6=92 [92]'];
    expect(verifyTrace([91, 80, 87, 6], 92, right, 'sos').ok).toBe(true);
    expect(verifyTrace([91, 80, 87, 6], 92, right, 'all-numbers')).toMatchObject({ reason: 'wrong-judgement' });
  });

  it("a search trace's answer is the expression of the path it found, not SoS's first solution", () => {
    // SoS finds 32+2=34, 44-34=10 first; the closest-first search finds 44-32=12, 12-2=10.
    const t = searchTrace([32, 2, 44], 10, ['32+2=34', '44-34=10'], { ...PLAIN, maxBacks: 4 });
    expect(t.lines).toEqual(['44-32=12 [12 2]', '12-2=10 [10]']);
    expect(t.solution).toEqual(['44-32=12', '12-2=10']);
    const [ex] = generateCountdown({ n: 3, count: 1, seed: 0, split: 'train' });
    expect(ex.answer).toBe('44-(32+2)');
    expect(
      renderCountdown(ex, { reasoning: 'search', numberFormat: 'plain', maxBacks: 4, searchOrder: 'closest' }).answer,
    ).toBe('44-32-2');
    // Over many instances: the answer always rebuilds from the trace's last path, within or past the budget.
    let differs = 0;
    for (const e of generateCountdown({ n: 4, count: 300, seed: 3, split: 'train' })) {
      const m = e.meta as CountdownMeta;
      for (const maxBacks of [0, 4, 100]) {
        const tr = searchTrace(m.nums, m.target, e.steps, { ...PLAIN, maxBacks });
        const r = renderCountdown(e, { reasoning: 'search', numberFormat: 'plain', maxBacks, searchOrder: 'closest' });
        expect(r.answer).toBe(stepsToExpression(m.nums, tr.solution));
        expect(tr.lines).toContain(`${tr.solution[tr.solution.length - 1]} [${m.target}]`);
        if (r.answer !== e.answer) differs++;
      }
    }
    expect(differs).toBeGreaterThan(100);
  });

  it('the checker rejects a wrong state, a back to a state off the path, wrong arithmetic and an unfinished search', () => {
    const nums = [29, 11, 62];
    expect(verifyTrace(nums, 44, ['29-11=18 [18 62]', '62-18=44 [44]'], 'sos').ok).toBe(true);
    expect(verifyTrace(nums, 44, ['29-11=18 [18 61]', '62-18=44 [44]'], 'sos').reason).toBe('wrong-state');
    expect(verifyTrace(nums, 44, ['29-11=18 [18 62]', 'back [18 29]'], 'sos').reason).toBe('wrong-state');
    expect(verifyTrace(nums, 44, ['29-11=18 [18 62]', '62-18=45 [45]'], 'sos').reason).toBe('wrong-arithmetic');
    expect(verifyTrace(nums, 44, ['29+11=40 [40 62]', 'back [29 11 62]'], 'sos').reason).toBe('unused-numbers');
    expect(
      verifyTrace(
        nums,
        44,
        ['29+11=40 [40 62]', '62-40=22 [22]', 'back [29 11 62]', '29-11=18 [18 62]', '62-18=44 [44]'],
        'sos',
      ).ok,
    ).toBe(true);
    // After a back, the numbers of the abandoned branch are gone.
    expect(verifyTrace(nums, 44, ['29+11=40 [40 62]', 'back [29 11 62]', '62-40=22 [22 29 11]'], 'sos').reason).toBe(
      'numbers-mismatch',
    );
  });

  it('reversed numbers read back by reversing again, in answers and reasoning', () => {
    expect(reverseDigitRuns('Make 120 from 7 45.')).toBe('Make 021 from 7 54.');
    expect(reverseDigitRuns(reverseDigitRuns('91-80=11 [11 87 6]'))).toBe('91-80=11 [11 87 6]');
    const [ex] = generateCountdown({ n: 3, count: 1, seed: 1, split: 'train' });
    const r = renderCountdown(ex, {
      reasoning: 'state',
      numberFormat: 'reversed',
      maxBacks: 4,
      searchOrder: 'closest',
    });
    const m = r.meta as CountdownMeta;
    expect(r.question).toBe(reverseDigitRuns(ex.question));
    expect(countdownTask.isCorrect(r, `### ${r.answer}`)).toBe(true);
    expect(countdownTask.isCorrect(r, `### ${ex.answer}`)).toBe(ex.answer === r.answer); // plain text is misread unless every number is a palindrome
    expect(m.numberFormat).toBe('reversed');
  });
});
