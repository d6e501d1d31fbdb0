import { describe, expect, it } from 'vitest';
import type { Example } from '../example.js';
import { countdownTask } from './task.js';

const ex: Example = {
  id: 'countdown/t/0',
  question: 'Make 44 from 29 11 62.',
  steps: ['29-11=18', '62-18=44'],
  answer: '62-(29-11)',
  meta: { nums: [29, 11, 62], target: 44, rules: 'sos' },
};

describe('Countdown checkReasoning', () => {
  const check = (text: string) => countdownTask.checkReasoning!(ex, text);

  it('accepts the reference steps, one per line, with blank lines and spaces', () => {
    expect(check('29-11=18\n62-18=44')).toMatchObject({ ok: true, reason: 'ok' });
    expect(check('\n 29 - 11 = 18 \n\n62-18=44\n')).toMatchObject({ ok: true });
  });

  it('names wrong arithmetic, unavailable numbers, a wrong end value and malformed lines', () => {
    expect(check('29-11=4\n62-4=44')).toMatchObject({ ok: false, reason: 'wrong-arithmetic' }); // a sample the quickstart's CoT wrote
    expect(check('29-12=17\n62-17=45')).toMatchObject({ ok: false, reason: 'numbers-mismatch' });
    expect(check('29+11=40\n62-40=22')).toMatchObject({ ok: false, reason: 'wrong-value' });
    expect(check('29-11=18\nthen 62-18=44')).toMatchObject({ ok: false, reason: 'syntax' });
    expect(check('')).toMatchObject({ ok: false, reason: 'empty' });
  });
});
