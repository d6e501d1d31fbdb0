/** The progress line's rate and ETA, from a fresh start and after a resume. */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { formatSeconds, Progress } from './progress.js';

/** A non-terminal stream that keeps what is written. */
function captured() {
  const lines: string[] = [];
  const out = { isTTY: false, write: (s: string) => lines.push(s) } as unknown as NodeJS.WriteStream;
  return { out, lines };
}

afterEach(() => vi.useRealTimers());

describe('Progress', () => {
  it('estimates the time left from the rate so far', () => {
    vi.useFakeTimers({ toFake: ['performance'] });
    const { out, lines } = captured();
    const bar = new Progress('sft', 100, out);
    vi.advanceTimersByTime(20_000);
    bar.update(10, 'loss 1.000');
    expect(lines.at(-1)).toBe('sft [##......................] 10/100 20s elapsed, ETA 3m00s  loss 1.000\n');
  });

  it('after a resume, counts only the steps done since, not the ones a checkpoint restored', () => {
    vi.useFakeTimers({ toFake: ['performance'] });
    const { out, lines } = captured();
    const bar = new Progress('sft', 2000, out);
    vi.advanceTimersByTime(30_000); // restoring the checkpoint, building the model
    bar.resumedAt(500);
    vi.advanceTimersByTime(4_000);
    bar.update(501);
    expect(lines.at(-1)).toContain('501/2000 4s elapsed, ETA 1h39m'); // 1,499 steps at 4 s: 5,996 s
  });

  it('formats durations without 60-second minutes', () => {
    expect(formatSeconds(59.6)).toBe('1m00s');
    expect(formatSeconds(179.7)).toBe('3m00s');
    expect(formatSeconds(42)).toBe('42s');
    expect(formatSeconds(3725)).toBe('1h02m');
    expect(formatSeconds(Infinity)).toBe('?');
  });
});
