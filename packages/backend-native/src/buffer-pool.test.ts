/** The output-buffer pool: reuse, escape tracking (taint), the cap, and safety on the backend. */
import * as tf from '@tensorflow/tfjs';
import { describe, expect, it } from 'vitest';
import { BufferPool } from './buffer-pool.js';
import { poolStats } from './index.js';
import { setupNative } from './testing.js';

describe('BufferPool', () => {
  it('reuses a released buffer of the same size', () => {
    const pool = new BufferPool(1 << 20);
    const a = pool.alloc(100);
    pool.noteWrite(a);
    pool.release(a);
    expect(pool.alloc(100)).toBe(a);
    expect(pool.alloc(100)).not.toBe(a);
  });

  it('never reuses a buffer that escaped', () => {
    const pool = new BufferPool(1 << 20);
    const read = pool.alloc(10);
    pool.noteWrite(read);
    pool.taint(read); // e.g. dataSync handed it out
    pool.release(read);
    const aliased = pool.alloc(10);
    pool.noteWrite(aliased);
    pool.noteWrite(aliased); // stored under a second dataId
    pool.release(aliased);
    const viewed = pool.alloc(10);
    pool.noteWrite(viewed);
    pool.noteWrite(viewed.subarray(2, 5)); // a view into it became a tensor
    pool.release(viewed);
    const fresh = pool.alloc(10);
    expect([read, aliased, viewed]).not.toContain(fresh);
    expect(pool.stats().tainted).toBe(3);
    expect(pool.stats().idleBytes).toBe(0);
  });

  it('trims idle sizes nobody asked for lately, even when the allocation that triggers the trim asks for one of them', () => {
    // The trim runs every 4,096 allocations. Here the 4,096th asks for the stale size 100 itself:
    // it must get a fresh buffer (a trimmed one is no longer the pool's), not the dropped one.
    const pool = new BufferPool(1 << 20, 1_000);
    const stale = pool.alloc(100);
    pool.noteWrite(stale);
    pool.release(stale);
    for (let i = 0; i < 4_094; i++) pool.release(pool.alloc(7)); // never attached: not pooled
    const next = pool.alloc(100); // allocation 4,096
    expect(next).not.toBe(stale);
    expect(pool.stats()).toMatchObject({ dropped: 1, idleBytes: 0 });
    pool.noteWrite(next);
    pool.release(next);
    expect(pool.alloc(100)).toBe(next); // pooled as usual afterwards
  });

  it('ignores arrays it did not allocate and buffers never attached', () => {
    const pool = new BufferPool(1 << 20);
    const user = new Float32Array(10);
    pool.noteWrite(user);
    pool.release(user);
    const neverAttached = pool.alloc(10);
    pool.release(neverAttached);
    expect(pool.alloc(10)).not.toBe(user);
    expect(pool.stats().idleBytes).toBe(0);
  });

  it('keeps idle bytes under the cap, evicting the least recently requested size', () => {
    const pool = new BufferPool(4000);
    const cycle = (n: number) => {
      const a = pool.alloc(n);
      pool.noteWrite(a);
      pool.release(a);
      return a;
    };
    cycle(500); // 2000 bytes; one at a time, so at most 2000 bytes are ever live and the cap stays 4000
    const recent = cycle(400); // 1600 bytes
    expect(pool.stats().idleBytes).toBe(3600);
    cycle(300); // 1200 bytes: evicts the 500-size class on release
    expect(pool.stats().idleBytes).toBe(2800);
    expect(pool.alloc(400)).toBe(recent);
  });

  it('raises the cap to 1.5 × the most bytes ever live at once, so a step bigger than the cap keeps its buffers', () => {
    const pool = new BufferPool(4000);
    const step = () => {
      const live = [pool.alloc(2000), pool.alloc(2000)]; // 16,000 bytes live: four times the cap
      for (const a of live) pool.noteWrite(a);
      for (const a of live) pool.release(a);
      return live;
    };
    const first = step();
    expect(pool.stats()).toMatchObject({ idleBytes: 16_000, peakLiveBytes: 16_000, dropped: 0 });
    const second = step();
    expect(new Set([...first, ...second]).size).toBe(2); // the second step reused both buffers
    expect(pool.stats()).toMatchObject({ hits: 2, misses: 2, dropped: 0 });
    // Beyond the raised cap (24,000 bytes) the least recently requested size still makes room.
    const other = pool.alloc(2500); // 10,000 bytes
    pool.noteWrite(other);
    pool.release(other);
    expect(pool.stats()).toMatchObject({ idleBytes: 10_000, dropped: 2 });
  });
});

const setup = await setupNative(tf);
if (!setup.available) console.warn(`[backend-native] skipping native tests: ${setup.reason}`);

describe.skipIf(!setup.available)('pooled outputs on the native backend', () => {
  it('values read with dataSync survive disposal and later kernels', async () => {
    await tf.setBackend('native');
    const x = tf.tensor([1, 2, 3, 4]);
    const y = tf.mul(x, 2);
    const read = y.dataSync();
    y.dispose();
    for (let i = 0; i < 5; i++) tf.dispose(tf.mul(x, 100));
    expect(Array.from(read)).toEqual([2, 4, 6, 8]);
    x.dispose();
  });

  it('slices (views into their input) stay valid after the input is disposed', async () => {
    await tf.setBackend('native');
    const x = tf.tensor([1, 2, 3, 4, 5, 6], [3, 2]);
    const y = tf.add(x, 1); // pooled
    const s = tf.slice(y, [1, 0], [2, 2]); // cpu Slice: a view into y's buffer
    y.dispose();
    for (let i = 0; i < 5; i++) tf.dispose(tf.mul(x, -1));
    expect(Array.from(s.dataSync())).toEqual([4, 5, 6, 7]);
    tf.dispose([x, s]);
  });

  it('reaches a steady state: no new buffers and a flat tensor count', async () => {
    await tf.setBackend('native');
    const w = tf.variable(tf.randomNormal([33, 17], 0, 1, 'float32', 1));
    const step = () =>
      tf.tidy(() => {
        const g = tf.grad((v: tf.Tensor) => tf.sum(tf.tanh(tf.matMul(tf.ones([7, 33]), v))))(w);
        w.assign(tf.sub(w, tf.mul(g, 0.01)));
      });
    for (let i = 0; i < 3; i++) step();
    const tensors = tf.memory().numTensors;
    const before = poolStats(tf)!;
    for (let i = 0; i < 20; i++) step();
    const after = poolStats(tf)!;
    expect(tf.memory().numTensors).toBe(tensors);
    expect(after.misses - before.misses).toBe(0);
    expect(after.hits - before.hits).toBeGreaterThan(100);
    w.dispose();
  });
});
