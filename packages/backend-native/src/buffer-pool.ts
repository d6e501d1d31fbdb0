/**
 * Reuse of float32 output buffers. A fresh Float32Array per kernel output costs page faults
 * and garbage collections (docs/engineering-notes.md §15), so the backend hands kernels buffers from
 * this pool and takes them back when tfjs disposes their data.
 *
 * Only buffers this pool allocated are ever reused, and only while they are provably private
 * to one tensor: a buffer is "tainted" (never reused; the GC frees it) as soon as it escapes —
 * read out through readSync/dataSync, stored under a second dataId, or viewed by another
 * array (cpu Slice returns views into its input). Idle buffers are capped in bytes, at the larger
 * of `capBytes` and PEAK_HEADROOM × the most bytes ever live at once: a training step frees
 * everything it allocated and the next step asks for the same again, so a fixed cap below one
 * step's buffers would drop and reallocate the largest of them every step. Beyond the cap the
 * least recently requested sizes are dropped, and sizes nobody asked for in the last
 * `staleAfter` allocations (e.g. after a batch-size change) are trimmed.
 */

/**
 * A step's distinct buffers add up to a little more than its live peak (idle ones of other sizes
 * sit beside the live ones): 1.08 × on GSM8K-sized steps (1,450 MB idle after a step whose live
 * peak was 1,339 MB). 1.5 leaves room for that without letting the pool grow without bound.
 */
const PEAK_HEADROOM = 1.5;

const enum State {
  /** Handed to a kernel, not yet stored under a dataId. */
  Fresh,
  /** Stored under exactly one dataId. */
  Attached,
  /** Idle in a free list. */
  Free,
}

interface Entry {
  array: Float32Array;
  state: State;
}

interface SizeClass {
  free: Float32Array[];
  lastUse: number;
}

export interface PoolStats {
  /** Buffers handed out from a free list. */
  hits: number;
  /** Buffers newly allocated. */
  misses: number;
  /** Buffers taken back. */
  recycled: number;
  /** Buffers that escaped and were left to the GC. */
  tainted: number;
  /** Buffers dropped or evicted because of the cap. */
  dropped: number;
  /** Arrays stored under a dataId that the pool did not allocate (JS kernels, user data), and their bytes. */
  foreignWrites: number;
  foreignBytes: number;
  /** Bytes idle in free lists now. */
  idleBytes: number;
  /** Bytes handed out and not yet returned (live pooled tensors), now and at most. */
  liveBytes: number;
  peakLiveBytes: number;
  /** The configured cap; the cap in force is the larger of this and 1.5 × `peakLiveBytes`. */
  capBytes: number;
}

export class BufferPool {
  private readonly owned = new WeakMap<ArrayBufferLike, Entry>();
  private readonly classes = new Map<number, SizeClass>();
  private tick = 0;
  private readonly s: PoolStats;

  constructor(
    capBytes: number,
    private readonly staleAfter = 20_000,
  ) {
    this.s = {
      hits: 0,
      misses: 0,
      recycled: 0,
      tainted: 0,
      dropped: 0,
      foreignWrites: 0,
      foreignBytes: 0,
      idleBytes: 0,
      liveBytes: 0,
      peakLiveBytes: 0,
      capBytes,
    };
  }

  /** A Float32Array of n elements with undefined contents. */
  alloc(n: number): Float32Array {
    if (n === 0) return new Float32Array(0);
    this.tick++;
    if ((this.tick & 4095) === 0) this.trimStale(); // before the lookup: it may drop this very size
    const c = this.classes.get(n);
    this.s.liveBytes += 4 * n;
    if (this.s.liveBytes > this.s.peakLiveBytes) this.s.peakLiveBytes = this.s.liveBytes;
    if (c) {
      c.lastUse = this.tick;
      const a = c.free.pop();
      if (a) {
        this.s.hits++;
        this.s.idleBytes -= a.byteLength;
        this.owned.get(a.buffer)!.state = State.Fresh;
        return a;
      }
    } else {
      this.classes.set(n, { free: [], lastUse: this.tick });
    }
    this.s.misses++;
    const a = new Float32Array(n);
    this.owned.set(a.buffer, { array: a, state: State.Fresh });
    return a;
  }

  /** Called when values are stored under a dataId. */
  noteWrite(values: unknown): void {
    const e = this.entryOf(values);
    if (!e) {
      if (ArrayBuffer.isView(values)) {
        this.s.foreignWrites++;
        this.s.foreignBytes += values.byteLength;
      }
      return;
    }
    if (e.array === values && e.state === State.Fresh) e.state = State.Attached;
    else this.taint(values);
  }

  /** The values escaped (read out, moved, aliased): never reuse their buffer. */
  taint(values: unknown): void {
    const e = this.entryOf(values);
    if (!e) return;
    if (e.state === State.Free) this.removeFree(e.array);
    else this.s.liveBytes -= e.array.byteLength;
    this.owned.delete(e.array.buffer);
    this.s.tainted++;
  }

  /** Called when the dataId holding `values` was deleted. */
  release(values: unknown): void {
    const e = this.entryOf(values);
    if (!e || e.array !== values || e.state !== State.Attached) return;
    const a = e.array;
    this.s.liveBytes -= a.byteLength;
    if (!this.makeRoom(a.byteLength, a.length)) {
      this.owned.delete(a.buffer);
      this.s.dropped++;
      return;
    }
    e.state = State.Free;
    let c = this.classes.get(a.length);
    if (!c) {
      c = { free: [], lastUse: this.tick };
      this.classes.set(a.length, c);
    }
    c.free.push(a);
    this.s.idleBytes += a.byteLength;
    this.s.recycled++;
  }

  /** Drops every idle buffer. */
  clear(): void {
    for (const c of this.classes.values()) {
      for (const a of c.free) this.owned.delete(a.buffer);
      c.free.length = 0;
    }
    this.classes.clear();
    this.s.idleBytes = 0;
  }

  stats(): PoolStats {
    return { ...this.s };
  }

  /** Drops idle buffers of sizes not requested in the last `staleAfter` allocations. */
  private trimStale(): void {
    for (const [size, c] of this.classes) {
      if (this.tick - c.lastUse < this.staleAfter) continue;
      for (const a of c.free) {
        this.owned.delete(a.buffer);
        this.s.idleBytes -= a.byteLength;
        this.s.dropped++;
      }
      c.free.length = 0;
      this.classes.delete(size);
    }
  }

  private entryOf(values: unknown): Entry | undefined {
    if (!(values instanceof Float32Array)) return undefined;
    return this.owned.get(values.buffer);
  }

  private removeFree(a: Float32Array): void {
    const c = this.classes.get(a.length);
    if (!c) return;
    const i = c.free.indexOf(a);
    if (i >= 0) {
      c.free.splice(i, 1);
      this.s.idleBytes -= a.byteLength;
    }
  }

  /** Evicts idle buffers of the least recently requested sizes until `bytes` fit under the cap. */
  private makeRoom(bytes: number, keepSize: number): boolean {
    const cap = Math.max(this.s.capBytes, PEAK_HEADROOM * this.s.peakLiveBytes);
    if (bytes > cap) return false;
    while (this.s.idleBytes + bytes > cap) {
      let victim: SizeClass | undefined;
      for (const [size, c] of this.classes) {
        if (size === keepSize || c.free.length === 0) continue;
        if (!victim || c.lastUse < victim.lastUse) victim = c;
      }
      if (!victim) {
        // Only buffers of this very size are idle: drop the incoming one.
        return false;
      }
      for (const a of victim.free) {
        this.owned.delete(a.buffer);
        this.s.idleBytes -= a.byteLength;
        this.s.dropped++;
      }
      victim.free.length = 0;
    }
    return true;
  }
}
