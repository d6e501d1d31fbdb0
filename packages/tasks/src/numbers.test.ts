import { describe, expect, it } from 'vitest';
import { answerText } from './answer.js';
import { canonicalNumber, firstNumber, numbersClose, numbersEqual } from './numbers.js';

describe('canonicalNumber', () => {
  it.each([
    ['72', '72'],
    ['1,000', '1000'],
    ['109,200,000', '109200000'],
    ['-3', '-3'],
    ['+5', '5'],
    ['72.0', '72'],
    ['0.50', '0.5'],
    ['.5', '0.5'],
    ['-0', '0'],
    ['-0.0', '0'],
    ['007', '7'],
    ['$18', '18'],
    ['72.', '72'],
    ['\u22124', '-4'],
    [' 12 ', '12'],
    ['-9867630.0', '-9867630'],
    ['5.158e-7', '0.0000005158'],
    ['1e+21', '1000000000000000000000'],
    ['-1.5E3', '-1500'],
  ])('%s → %s', (a, b) => expect(canonicalNumber(a)).toBe(b));
  it.each(['', 'abc', '1,00', '12a', '1.2.3', '--1', '1,0000'])('rejects %j', (a) =>
    expect(canonicalNumber(a)).toBeNull(),
  );
});

describe('numeric matching', () => {
  it('compares after normalisation', () => {
    expect(numbersEqual('1,000', '1000.0')).toBe(true);
    expect(numbersEqual('-2', '2')).toBe(false);
    expect(numbersEqual('x', 'x')).toBe(false);
  });
  it('uses a relative tolerance for floats', () => {
    expect(numbersClose('9284017268534', '9284017268534.4')).toBe(true);
    expect(numbersClose('0.33333', '0.3333333333')).toBe(true);
    expect(numbersClose('0.3', '0.3333333333')).toBe(false);
  });
  it('finds the first number and the answer after the last ###', () => {
    expect(firstNumber('The answer is 1,000 apples.')).toBe('1,000');
    expect(firstNumber('owes -12.5 dollars')).toBe('-12.5');
    expect(firstNumber('none')).toBeNull();
    expect(answerText('q\n48/2=24\n### 72<eos>junk')).toBe('72');
    expect(answerText('a ### b ### 9\nmore')).toBe('9');
    expect(answerText(' 18 ')).toBe('18');
  });
});
