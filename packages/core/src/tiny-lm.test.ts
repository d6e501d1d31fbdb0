import * as tf from '@tensorflow/tfjs-core';
import { expect, it } from 'vitest';
import { CACHE_BLOCK, disposeCache, wholeLayer, type KvCache } from './kv-cache.js';
import { Rng } from './rng.js';
import { expectClose, expectNoLeak, forEachBackend, tinyLm, tinyLmConfig } from './testing.js';
import { POSITION_KINDS, TinyLm } from './tiny-lm.js';

const ids = (rows: number[][]) => tf.tensor2d(rows, [rows.length, rows[0].length], 'int32');

forEachBackend((backend, ready) => {
  const tol = backend === 'cpu' ? { rtol: 1e-5, atol: 1e-5 } : { rtol: 1e-4, atol: 1e-4 };

  it('returns logits [B,T,V], L+1 hidden states [B,T,C] and a cache [B,H,T,D]', async (ctx) => {
    if (!ready()) return ctx.skip();
    const lm = tinyLm();
    await expectNoLeak(() =>
      tf.tidy(() => {
        const out = lm.forward(
          lm.embed(
            ids([
              [1, 2, 3],
              [4, 5, 6],
            ]),
          ),
        );
        expect(out.logits.shape).toEqual([2, 3, tinyLmConfig.vocabSize]);
        expect(out.hidden).toHaveLength(tinyLmConfig.layers + 1);
        for (const h of out.hidden) expect(h.shape).toEqual([2, 3, tinyLmConfig.width]);
        expect(wholeLayer(out.cache.layers[0]).k.shape).toEqual([
          2,
          tinyLmConfig.heads,
          3,
          tinyLmConfig.width / tinyLmConfig.heads,
        ]);
        expect(out.cache.position).toBe(3);
      }),
    );
    lm.dispose();
  });

  for (const positions of POSITION_KINDS) {
    it(`${positions} positions: decoding step by step with the cache gives the full forward logits`, async (ctx) => {
      if (!ready()) return ctx.skip();
      const lm = tinyLm({ positions });
      const seq = [
        [3, 1, 4, 1, 5, 9, 2],
        [2, 7, 1, 8, 2, 8, 1],
      ];
      await expectNoLeak(() =>
        tf.tidy(() => {
          const full = lm.forward(lm.embed(ids(seq))).logits;
          const first = lm.forward(lm.embed(ids(seq.map((r) => r.slice(0, 3)))));
          let cache = first.cache;
          const steps: tf.Tensor[] = [first.logits];
          for (let t = 3; t < 7; t++) {
            const out = lm.forward(lm.embed(ids(seq.map((r) => [r[t]]))), { cache });
            disposeCache(cache);
            cache = out.cache;
            steps.push(out.logits);
          }
          expect(cache.position).toBe(7);
          expectClose(tf.concat(steps, 1), full, tol);
        }),
      );
      lm.dispose();
    });

    it(`${positions} positions: a cache past several blocks, fed one position or a few at a time, gives the full forward logits`, async (ctx) => {
      if (!ready()) return ctx.skip();
      const S = 2 * CACHE_BLOCK + 23;
      const lm = tinyLm({ positions, contextLength: S });
      const rng = new Rng(3);
      const seq = [0, 1].map(() => Array.from({ length: S }, () => rng.int(tinyLmConfig.vocabSize)));
      const feeds = [5, ...Array.from({ length: 60 }, () => 1), 7, 3, ...Array.from({ length: S - 75 }, () => 1)];
      await expectNoLeak(() =>
        tf.tidy(() => {
          const full = lm.forward(lm.embed(ids(seq))).logits; // [2, S, V]
          let cache: KvCache | undefined;
          let at = 0;
          const steps: tf.Tensor[] = [];
          for (const n of feeds) {
            const out = lm.forward(lm.embed(ids(seq.map((r) => r.slice(at, at + n)))), { cache });
            disposeCache(cache); // the next cache shares its full blocks and must stay whole
            cache = out.cache;
            steps.push(out.logits);
            at += n;
          }
          expect(at).toBe(S);
          expectClose(tf.concat(steps, 1), full, tol);
          // Every block but the last holds at least CACHE_BLOCK positions, and the blocks add up to S.
          for (const blocks of cache!.layers) {
            const lengths = blocks.map((b) => b.k.shape[2]);
            expect(lengths.reduce((a, b) => a + b, 0)).toBe(S);
            expect(lengths.slice(0, -1).every((n) => n >= CACHE_BLOCK)).toBe(true);
            expect(lengths.length).toBeGreaterThanOrEqual(2);
          }
          disposeCache(cache);
        }),
      );
      lm.dispose();
    });

    it(`${positions} positions: a left-padded row gives the same logits as the same row unpadded`, async (ctx) => {
      if (!ready()) return ctx.skip();
      const lm = tinyLm({ positions });
      tf.tidy(() => {
        const alone = lm.forward(lm.embed(ids([[5, 6, 7]]))).logits;
        const padded = lm.forward(
          lm.embed(
            ids([
              [0, 0, 5, 6, 7],
              [1, 2, 3, 4, 5],
            ]),
          ),
          {
            attentionMask: tf.tensor2d([
              [0, 0, 1, 1, 1],
              [1, 1, 1, 1, 1],
            ]),
            positions: tf.tensor2d(
              [
                [0, 0, 0, 1, 2],
                [0, 1, 2, 3, 4],
              ],
              [2, 5],
              'int32',
            ),
          },
        ).logits;
        expectClose(tf.slice(padded, [0, 2, 0], [1, 3, -1]), alone, tol);
      });
      lm.dispose();
    });

    it(`${positions} positions: extraKV is attended to as earlier positions (equals passing the same keys as a cache)`, async (ctx) => {
      if (!ready()) return ctx.skip();
      const lm = tinyLm({ positions });
      tf.tidy(() => {
        const prefix = lm.forward(lm.embed(ids([[9, 8, 7]])));
        const viaCache = lm.forward(lm.embed(ids([[1, 2]])), { cache: prefix.cache }).logits;
        const viaExtra = lm.forward(lm.embed(ids([[1, 2]])), {
          extraKV: { layers: prefix.cache.layers.map(wholeLayer) },
          positions: tf.tensor2d([[3, 4]], [1, 2], 'int32'),
        });
        expectClose(viaExtra.logits, viaCache, tol);
        expect(viaExtra.cache.keyMask.shape).toEqual([1, 5]);
        // A masked-out extra position changes nothing compared with no extra at all.
        const none = lm.forward(lm.embed(ids([[1, 2]]))).logits;
        const masked = lm.forward(lm.embed(ids([[1, 2]])), {
          extraKV: { layers: prefix.cache.layers.map(wholeLayer), mask: tf.zeros([1, 3]) },
        }).logits;
        expectClose(masked, none, tol);
      });
      lm.dispose();
    });
  }

  it('rotary positions: logits depend only on relative positions; learned ones on absolute positions', async (ctx) => {
    if (!ready()) return ctx.skip();
    const rotary = tinyLm({ positions: 'rotary' });
    const learned = tinyLm({ positions: 'learned' });
    expect(rotary.params.has('wpe')).toBe(false);
    expect(rotary.size).toBe(learned.size - tinyLmConfig.contextLength * tinyLmConfig.width);
    await expectNoLeak(() =>
      tf.tidy(() => {
        const at = (start: number) => tf.tensor2d([[start, start + 1, start + 2, start + 3]], [1, 4], 'int32');
        const seq = ids([[3, 1, 4, 1]]);
        const shifted = (lm: TinyLm) => lm.forward(lm.embed(seq), { positions: at(7) }).logits;
        const base = (lm: TinyLm) => lm.forward(lm.embed(seq), { positions: at(0) }).logits;
        expectClose(shifted(rotary), base(rotary), tol);
        expect(tf.max(tf.abs(tf.sub(shifted(learned), base(learned)))).dataSync()[0]).toBeGreaterThan(1e-3);
        // Order still matters: the last position sees [1, 4, 1, 3] differently from [3, 1, 4, 1].
        const swapped = rotary.forward(rotary.embed(ids([[1, 4, 1, 3]]))).logits;
        const last = (t: tf.Tensor) => tf.slice(t, [0, 3, 0], [1, 1, -1]);
        expect(
          tf
            .max(tf.abs(tf.sub(last(swapped), last(rotary.forward(rotary.embed(ids([[4, 1, 1, 3]]))).logits))))
            .dataSync()[0],
        ).toBeGreaterThan(1e-4);
      }),
    );
    rotary.dispose();
    learned.dispose();
  });

  it("newKv holds the new positions' keys and values, the tail of the returned cache", async (ctx) => {
    if (!ready()) return ctx.skip();
    const lm = tinyLm();
    tf.tidy(() => {
      const prefix = lm.forward(lm.embed(ids([[9, 8, 7]])));
      const out = lm.forward(lm.embed(ids([[1, 2]])), { cache: prefix.cache });
      expect(out.newKv.length).toBe(lm.config.layers);
      out.newKv.forEach((kv, l) => {
        expect(kv.k.shape).toEqual([1, 2, 2, 4]);
        expectClose(kv.k, tf.slice(wholeLayer(out.cache.layers[l]).k, [0, 0, 3, 0], [-1, -1, 2, -1]), tol);
        expectClose(kv.v, tf.slice(wholeLayer(out.cache.layers[l]).v, [0, 0, 3, 0], [-1, -1, 2, -1]), tol);
      });
    });
    lm.dispose();
  });

  it('gives clear errors for bad shapes and ids', async (ctx) => {
    if (!ready()) return ctx.skip();
    const lm = tinyLm();
    tf.tidy(() => {
      expect(() => lm.forward(tf.zeros([1, 2, 3]) as tf.Tensor3D)).toThrow(/embeds must be \[B, T, 8\], got \[1,2,3\]/);
      expect(() => lm.embed(ids([[99]]))).toThrow(/token id 99 outside \[0, 16\)/);
      expect(() => lm.embed(tf.tensor2d([[1]], [1, 1], 'float32'))).toThrow(/int32/);
      expect(() => lm.forward(lm.embed(ids([[1, 2]])), { attentionMask: tf.ones([1, 3]) as tf.Tensor2D })).toThrow(
        /attentionMask must be \[1, 2\]/,
      );
      expect(() => lm.forward(tf.zeros([1, 17, 8]) as tf.Tensor3D)).toThrow(/exceed contextLength 16/);
    });
    expect(() => new TinyLm({ ...tinyLmConfig, heads: 3 }, new Rng(0))).toThrow(/divisible/);
    expect(() => new TinyLm({ ...tinyLmConfig, positions: 'alibi' } as never, new Rng(0))).toThrow(
      /lm.positions must be one of learned, rotary, got "alibi"/,
    );
    expect(() => new TinyLm({ ...tinyLmConfig, width: 6, heads: 2, positions: 'rotary' }, new Rng(0))).toThrow(
      /even head width/,
    );
    expect(() => new TinyLm({ ...tinyLmConfig, layerz: 1 } as never, new Rng(0))).toThrow(
      /unknown config key "layerz"/,
    );
    lm.dispose();
  });
});

it('same seed gives identical parameters; another seed differs', () => {
  const a = tinyLm({}, 1);
  const b = tinyLm({}, 1);
  const c = tinyLm({}, 2);
  expect(Array.from(a.params.get('h0.attn.wq')!.dataSync())).toEqual(
    Array.from(b.params.get('h0.attn.wq')!.dataSync()),
  );
  expect(Array.from(a.params.get('h0.attn.wq')!.dataSync())).not.toEqual(
    Array.from(c.params.get('h0.attn.wq')!.dataSync()),
  );
  [a, b, c].forEach((m) => m.dispose());
});

it("without a gradient tape, a forward holds one layer's attention at a time: peak memory barely grows with depth", async () => {
  const peak = async (layers: number) => {
    const lm = tinyLm({ layers, heads: 4, width: 16, vocabSize: 8, contextLength: 128 });
    const x = tf.zeros([8, 128], 'int32') as tf.Tensor2D;
    // Scores and probabilities [8, 4, 128, 128] are 2 MiB each; a layer's kept outputs 0.2 MiB.
    const p = await tf.profile(() => {
      tf.dispose(lm.forward(lm.embed(x)) as unknown as tf.TensorContainer);
    });
    x.dispose();
    lm.dispose();
    return p.peakBytes;
  };
  const one = await peak(1);
  const four = await peak(4);
  expect(four).toBeLessThan(1.5 * one); // all layers' intermediates live at once would be ≈ 4 ×
});
