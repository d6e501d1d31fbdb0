import { describe, expect, it } from 'vitest';
import { gsmHardTask, gsm8kTask, svampTask } from './task.js';
import { loadGsmHard, loadSvamp, stripChars } from './ood.js';

describe('out-of-distribution sets', () => {
  it('GSM-Hard: 1,319 records, CoLaR conversion', async () => {
    const r = await loadGsmHard();
    expect(r.examples.length).toBe(1319);
    const e = r.examples[0];
    expect(e.question).toMatch(/^Janet’s ducks lay 16 eggs/);
    expect(e.steps.length).toBe(1);
    expect(e.steps[0]).toMatch(/def solution\(\):/);
    expect(e.answer).toBe('-9867630');
    // docs/datasets.md §6: 146 negative, 303 non-integer targets.
    expect(r.examples.filter((x) => x.answer.startsWith('-')).length).toBe(146);
    expect(r.examples.filter((x) => x.answer.includes('.')).length).toBe(303);
  });

  it('SVAMP: 1,000 records, CoLaR conversion', async () => {
    const r = await loadSvamp();
    expect(r.examples.length).toBe(1000);
    expect(r.examples[0]).toEqual({
      id: 'svamp/test/0',
      question:
        'Each pack of dvds costs 76 dollars. If there is a discount of 25 dollars on each pack. How much do you have to pay to buy each pack?',
      steps: ['( 76.0 - 25.0 )'],
      answer: '51',
      meta: { svampId: 'chal-1', type: 'Subtraction' },
    });
    expect(r.examples.every((x) => !x.question.includes('.. '))).toBe(true);
    expect(stripChars(' . a. b .. ', '. ')).toBe('a. b');
  });

  it('scores numeric answers per dataset', () => {
    const ex = { id: 'x', question: 'q', steps: [], answer: '1,000' };
    expect(gsm8kTask.isCorrect(ex, 'q\n1+1=2\n### 1000<eos>')).toBe(true);
    expect(gsm8kTask.isCorrect(ex, '### 1000.0')).toBe(true);
    expect(gsm8kTask.isCorrect(ex, '### 100')).toBe(false);
    expect(gsm8kTask.isCorrect(ex, 'no answer')).toBe(false);
    expect(svampTask.isCorrect({ ...ex, answer: '51' }, '### 51.0')).toBe(true);
    expect(gsmHardTask.isCorrect({ ...ex, answer: '0.3333333333333333' }, '### 0.33333')).toBe(true);
    expect(gsmHardTask.isCorrect({ ...ex, answer: '-9867630' }, '### 9867630')).toBe(false);
  });
});
