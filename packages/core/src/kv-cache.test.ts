import * as tf from '@tensorflow/tfjs-core';
import { expect, it } from 'vitest';
import {
  appendBlocks,
  CACHE_BLOCK,
  cacheRows,
  concatCacheRows,
  disposeCache,
  wholeLayer,
  type KvCache,
} from './kv-cache.js';
import { Rng } from './rng.js';
import { expectClose, expectNoLeak, forEachBackend, tinyLm, tinyLmConfig } from './testing.js';

const ids = (rows: number[][]) => tf.tensor2d(rows, [rows.length, rows[0].length], 'int32');
const kvOf = (S: number, fill: number) => ({
  k: tf.fill([1, 1, S, 2], fill) as tf.Tensor4D,
  v: tf.fill([1, 1, S, 2], -fill) as tf.Tensor4D,
});

forEachBackend((backend, ready) => {
  const tol = backend === 'cpu' ? { rtol: 1e-5, atol: 1e-5 } : { rtol: 1e-4, atol: 1e-4 };

  it('appendBlocks joins an open block with what follows, shares full blocks, and leaves the earlier blocks whole', async (ctx) => {
    if (!ready()) return ctx.skip();
    await expectNoLeak(() =>
      tf.tidy(() => {
        const full = kvOf(CACHE_BLOCK, 1);
        const open = kvOf(10, 2);
        const layer = appendBlocks(
          [full, open],
          [
            { kv: kvOf(1, 3), owned: true },
            { kv: kvOf(2, 4), owned: true },
          ],
        );
        expect(layer.map((b) => b.k.shape[2])).toEqual([CACHE_BLOCK, 13]);
        expect(layer[0].k).not.toBe(full.k); // a reference of its own to the same values
        full.k.dispose(); // disposing the earlier cache's block leaves the new one readable
        expect(Array.from(layer[0].k.dataSync().slice(0, 2))).toEqual([1, 1]);
        expect(Array.from(wholeLayer(layer).v.dataSync().slice(-2))).toEqual([-4, -4]);
        // A block that reached CACHE_BLOCK stays closed: what follows starts a new one.
        const next = appendBlocks(
          [kvOf(CACHE_BLOCK - 1, 5)],
          [
            { kv: kvOf(1, 6), owned: true },
            { kv: kvOf(1, 7), owned: true },
          ],
        );
        expect(next.map((b) => b.k.shape[2])).toEqual([CACHE_BLOCK, 1]);
      }),
    );
  });

  it('cacheRows and concatCacheRows on caches of several blocks decode as the whole batch does', async (ctx) => {
    if (!ready()) return ctx.skip();
    const S = CACHE_BLOCK + 20;
    const lm = tinyLm({ contextLength: S + 2 });
    const rng = new Rng(5);
    const seq = [0, 1, 2].map(() => Array.from({ length: S + 1 }, () => rng.int(tinyLmConfig.vocabSize)));
    await expectNoLeak(() =>
      tf.tidy(() => {
        let cache: KvCache = lm.forward(lm.embed(ids(seq.map((r) => r.slice(0, 30))))).cache;
        for (let t = 30; t < S; t++) {
          const out = lm.forward(lm.embed(ids(seq.map((r) => [r[t]]))), { cache });
          disposeCache(cache);
          cache = out.cache;
        }
        expect(cache.layers[0].length).toBeGreaterThan(1);
        const last = ids(seq.map((r) => [r[S]]));
        const whole = lm.forward(lm.embed(last), { cache }).logits; // [3, 1, V]
        const outer = cacheRows(cache, tf.tensor1d([0, 2], 'int32'));
        const middle = cacheRows(cache, tf.tensor1d([1], 'int32'));
        const rejoined = concatCacheRows([outer, middle]); // rows 0, 2, 1
        const apart = lm.forward(lm.embed(tf.gather(last, [0, 2, 1])), { cache: rejoined }).logits;
        expectClose(apart, tf.gather(whole, [0, 2, 1]), tol);
        disposeCache(cache);
      }),
    );
    lm.dispose();
  });
});
