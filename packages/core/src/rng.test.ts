import { describe, expect, it } from 'vitest';
import { Rng } from './rng.js';

describe('Rng', () => {
  it('repeats a sequence for the same seed and differs for another', () => {
    const a = new Rng(7);
    const b = new Rng(7);
    const c = new Rng(8);
    const sa = Array.from({ length: 5 }, () => a.nextU32());
    expect(Array.from({ length: 5 }, () => b.nextU32())).toEqual(sa);
    expect(Array.from({ length: 5 }, () => c.nextU32())).not.toEqual(sa);
  });

  it('forks by label independently of the parent draw position', () => {
    const a = new Rng(1);
    const before = a.fork('data').float();
    a.float();
    a.float();
    expect(a.fork('data').float()).toBe(before);
    expect(a.fork('init').float()).not.toBe(before);
  });

  it('draws integers in range without bias and floats in [0, 1)', () => {
    const r = new Rng(3);
    const counts = new Array(6).fill(0);
    for (let i = 0; i < 60000; i++) counts[r.int(6)]++;
    for (const n of counts) expect(Math.abs(n - 10000)).toBeLessThan(400);
    for (let i = 0; i < 1000; i++) {
      const f = r.float();
      expect(f >= 0 && f < 1).toBe(true);
    }
    expect(() => r.int(0)).toThrow(/positive integer/);
  });

  it('normal draws have mean ≈ 0 and variance ≈ 1', () => {
    const xs = new Rng(5).normalArray(20000);
    const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
    const v = xs.reduce((a, b) => a + (b - mean) ** 2, 0) / xs.length;
    expect(Math.abs(mean)).toBeLessThan(0.03);
    expect(Math.abs(v - 1)).toBeLessThan(0.05);
  });

  it('saves and restores its state, and refuses a state of another seed', () => {
    const r = new Rng(11);
    r.normal();
    const st = r.state();
    const next = [r.float(), r.normal(), r.int(100)];
    const q = new Rng(11);
    q.restore(st);
    expect([q.float(), q.normal(), q.int(100)]).toEqual(next);
    expect(() => new Rng(12).restore(st)).toThrow(/seed path/);
  });

  it('shuffles deterministically and keeps every element', () => {
    const xs = Array.from({ length: 20 }, (_, i) => i);
    const s1 = new Rng(2).shuffle([...xs]);
    expect(new Rng(2).shuffle([...xs])).toEqual(s1);
    expect([...s1].sort((a, b) => a - b)).toEqual(xs);
  });
});
