import { expect, it } from 'vitest';
import { formatSeconds } from './progress.js';

it('formats durations without 60-second minutes', () => {
  expect(formatSeconds(59.6)).toBe('1m00s');
  expect(formatSeconds(179.7)).toBe('3m00s');
  expect(formatSeconds(42)).toBe('42s');
  expect(formatSeconds(3725)).toBe('1h02m');
  expect(formatSeconds(Infinity)).toBe('?');
});
