import { Rng } from '@telepath/core';
import { describe, expect, it } from 'vitest';
import type { Example } from './example.js';
import { countdownGreedy, countdownSum, taskHeuristics } from './heuristics.js';
import { prosqaTask } from './prosqa/task.js';
import { countdownTask } from './countdown/task.js';
import { DEFAULT_RENDER_OPTIONS, renderCountdown } from './countdown/reasoning.js';
import { gsm8kTask } from './gsm8k/task.js';
import { scoreHeuristics } from './cli/score-heuristics.js';
import { handMadeProsqa } from './testing.js';

const countdown = (nums: number[], target: number): Example => ({
  id: `cd/${nums.join('-')}`,
  question: `Make ${target} from ${nums.join(' ')}.`,
  steps: [],
  answer: '',
  meta: { nums, target, rules: 'sos' },
});

describe('ProsQA heuristics', () => {
  const h = taskHeuristics('prosqa');
  it('less-mentioned picks the option in fewer facts (rompus: 1 fact, yumpus: 3), whatever the listing order', () => {
    for (const first of ['yumpus', 'rompus'] as const) {
      const ex = handMadeProsqa(first);
      expect(h['less-mentioned'].answer(ex, new Rng(0)).answer).toBe('Tom is a rompus.');
      expect(prosqaTask.isCorrect(ex, `### ${h['less-mentioned'].answer(ex, new Rng(0)).answer}`)).toBe(false);
    }
  });
  it('first-listed follows the question text, or meta.optionOrder when a rendering records it', () => {
    expect(h['first-listed'].answer(handMadeProsqa('yumpus'), new Rng(0)).answer).toBe('Tom is a yumpus.');
    expect(h['first-listed'].answer(handMadeProsqa('rompus'), new Rng(0)).answer).toBe('Tom is a rompus.');
    const symbolic = {
      ...handMadeProsqa('yumpus'),
      question: 'E0 E1 E2 ? 3 2',
      meta: { ...handMadeProsqa('yumpus').meta, optionOrder: [3, 2] },
    };
    expect(h['first-listed'].answer(symbolic, new Rng(0)).answer).toBe('Tom is a rompus.');
  });
  it('chance names one of the two options, each about half the time, reproducibly from the Rng', () => {
    const ex = handMadeProsqa('yumpus');
    const answers = Array.from({ length: 400 }, (_, i) => h.chance.answer(ex, new Rng(7).fork(String(i))).answer);
    const right = answers.filter((a) => prosqaTask.isCorrect(ex, `### ${a}`)).length;
    expect(new Set(answers)).toEqual(new Set(['Tom is a yumpus.', 'Tom is a rompus.']));
    expect(right).toBeGreaterThan(160);
    expect(right).toBeLessThan(240);
    expect(h.chance.answer(ex, new Rng(3)).answer).toBe(h.chance.answer(ex, new Rng(3)).answer);
  });
});

describe('Countdown heuristics', () => {
  it('sum adds every number with a sound chain, and scores right only when the sum is the target', () => {
    const s = countdownSum([3, 5, 7]);
    expect(s).toEqual({ answer: '3+5+7', chain: ['3+5=8', '8+7=15'] });
    expect(countdownTask.isCorrect(countdown([3, 5, 7], 15), `### ${s.answer}`)).toBe(true);
    expect(countdownTask.isCorrect(countdown([3, 5, 7], 16), `### ${s.answer}`)).toBe(false);
  });
  it('greedy takes the move nearest the target at each step', () => {
    // 10·4 = 40 is nearest 42 first; then 2 + 40 = 42 (the result joins the end of the pool).
    const g = countdownGreedy([10, 4, 2], 42);
    expect(g.chain).toEqual(['10*4=40', '2+40=42']);
    expect(countdownTask.isCorrect(countdown([10, 4, 2], 42), `### ${g.answer}`)).toBe(true);
    expect(countdownTask.checkReasoning!(countdown([10, 4, 2], 42), g.chain.join('\n')).ok).toBe(true);
    // Greedy is no search: for 9 from 2 3 4, 2·4 = 8 is nearest first, then 8 + 3 = 11 misses (2 + 3 + 4 = 9 would not).
    expect(countdownGreedy([2, 3, 4], 9).chain).toEqual(['2*4=8', '3+8=11']);
  });
  it("answer in the example's number format: a reversed-digit example gets reversed digits, which its checker reads", () => {
    // 25 + 17 = 42: both rules find it; rendered with reversed digits the question reads "Make 24 from 52 71."
    const plain = countdown([25, 17], 42);
    const reversed = renderCountdown(plain, { ...DEFAULT_RENDER_OPTIONS, numberFormat: 'reversed' });
    expect(reversed.question).toBe('Make 24 from 52 71.');
    for (const rule of ['sum', 'greedy']) {
      const onPlain = taskHeuristics('countdown')[rule].answer(plain, new Rng(0));
      const onReversed = taskHeuristics('countdown')[rule].answer(reversed, new Rng(0));
      expect(onPlain).toEqual({ answer: '25+17', chain: ['25+17=42'] });
      expect(onReversed).toEqual({ answer: '52+71', chain: ['52+71=24'] });
      expect(countdownTask.isCorrect(reversed, `### ${onReversed.answer}`), rule).toBe(true);
      expect(countdownTask.isCorrect(reversed, `### ${onPlain.answer}`), rule).toBe(false); // what the arms wrote before
      expect(countdownTask.checkReasoning!(reversed, onReversed.chain.join('\n')).ok, rule).toBe(true);
    }
  });
  it('GSM8K last-number answers the last number of the question', () => {
    const ex: Example = { id: 'g', question: 'Ann has 3 apples and buys 1,200 more.', steps: [], answer: '1203' };
    expect(taskHeuristics('gsm8k')['last-number'].answer(ex, new Rng(0)).answer).toBe('1200');
    expect(gsm8kTask.isCorrect({ ...ex, answer: '1200' }, '### 1200')).toBe(true);
  });
});

it("scoreHeuristics counts each heuristic's correct answers", () => {
  const questions = [handMadeProsqa('yumpus', 'a'), handMadeProsqa('rompus', 'b')];
  const scores = scoreHeuristics(prosqaTask, questions);
  expect(scores.map((s) => [s.heuristic, s.correct, s.total])).toEqual([
    ['less-mentioned', 0, 2],
    ['first-listed', 1, 2],
    ['chance', scores[2].correct, 2],
  ]);
});
