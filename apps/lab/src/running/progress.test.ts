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
    vi.advanceTimersByTime(40_000);
    bar.update(510);
    expect(lines.at(-1)).toContain('510/2000 40s elapsed, ETA 1h39m'); // 1,490 steps at 4 s: 5,960 s
  });

  it('gives no ETA from a single step, then measures from that step on, leaving its one-time costs out', () => {
    vi.useFakeTimers({ toFake: ['performance'] });
    const { out, lines } = captured();
    const bar = new Progress('sft', 6250, out);
    bar.resumedAt(300);
    vi.advanceTimersByTime(5_000); // the first step after a resume: warm-up costs
    bar.update(301);
    expect(lines.at(-1)).toBe('sft [#.......................] 301/6250 5s elapsed, ETA ?\n');
    vi.advanceTimersByTime(48_000); // 24 steps at 2 s
    bar.update(325);
    // Printed although still in the same tenth, since the line before had no ETA: 5,925 steps at 2 s.
    expect(lines.at(-1)).toBe('sft [#.......................] 325/6250 53s elapsed, ETA 3h17m\n');
    vi.advanceTimersByTime(48_000);
    bar.update(349);
    expect(lines).toHaveLength(2); // then again every tenth
  });

  it('ends with an ETA of 0 even when the work was one unit', () => {
    const { out, lines } = captured();
    new Progress('decode-time', 1, out).update(1);
    expect(lines.at(-1)).toMatch(/1\/1 \d+s elapsed, ETA 0s\n$/);
  });

  it('formats durations without 60-second minutes', () => {
    expect(formatSeconds(59.6)).toBe('1m00s');
    expect(formatSeconds(179.7)).toBe('3m00s');
    expect(formatSeconds(42)).toBe('42s');
    expect(formatSeconds(3725)).toBe('1h02m');
    expect(formatSeconds(Infinity)).toBe('?');
  });
});
