import * as tf from '@tensorflow/tfjs-core';
import { initBackend, Rng, TinyLm, type LayerKv } from '@telepath/core';
import { expectClose, expectNoLeak } from '@telepath/core/testing';
import { beforeAll, describe, expect, it } from 'vitest';
import { continueBase, controlLatents, encodePrompts } from './model.js';

beforeAll(async () => {
  await initBackend('cpu', { quiet: true });
});

// Plain-array helpers for the hand computation.
const arr = (t: tf.Tensor) => Array.from(t.dataSync());
const vecMat = (x: number[], w: number[], cols: number) =>
  Array.from({ length: cols }, (_, j) => x.reduce((a, xi, i) => a + xi * w[i * cols + j], 0));
const add = (a: number[], b: number[]) => a.map((v, i) => v + b[i]);
const dot = (a: number[], b: number[]) => a.reduce((s, v, i) => s + v * b[i], 0);
function layerNorm(x: number[], g: number[], b: number[], eps: number): number[] {
  const m = x.reduce((a, v) => a + v, 0) / x.length;
  const v = x.reduce((a, u) => a + (u - m) ** 2, 0) / x.length;
  return x.map((u, i) => ((u - m) / Math.sqrt(v + eps)) * g[i] + b[i]);
}

describe('KV injection (H1)', () => {
  it('attention over the injected keys/values equals a hand computation on a 1-layer, 1-head model', () => {
    const C = 4;
    const lm = new TinyLm(
      {
        vocabSize: 6,
        contextLength: 8,
        layers: 1,
        heads: 1,
        width: C,
        mlpRatio: 1,
        dropout: 0,
        layerNormEps: 1e-5,
        initStd: 0.5,
      },
      new Rng(3),
    );
    for (const n of ['h0.mlp.wproj', 'h0.mlp.bproj']) lm.params.get(n)!.assign(tf.zerosLike(lm.params.get(n)!)); // block = attention only
    const rng = new Rng(4);
    const ek = rng.normalArray(2 * C);
    const ev = rng.normalArray(2 * C);
    const P = (n: string) => arr(lm.params.get(n)!);
    const logits = tf.tidy(() => {
      const extra: LayerKv[] = [{ k: tf.tensor4d(ek, [1, 1, 2, C]), v: tf.tensor4d(ev, [1, 1, 2, C]) }];
      const prompt = encodePrompts(lm, [[1]], 0); // one prompt token (id 1) at position 0
      return arr(continueBase(lm, prompt, { injection: 'kv', kv: extra }, [[2]], 0).logits); // token 2 at position 1
    });
    const wte = P('wte');
    const wpe = P('wpe');
    const ln1 = (x: number[]) => layerNorm(x, P('h0.ln1.g'), P('h0.ln1.b'), 1e-5);
    const x0 = add(wte.slice(C, 2 * C), wpe.slice(0, C));
    const x1 = add(wte.slice(2 * C, 3 * C), wpe.slice(C, 2 * C));
    const proj = (x: number[], w: string) => add(vecMat(ln1(x), P(`h0.attn.w${w}`), C), P(`h0.attn.b${w}`));
    // keys in order: prompt cache, injected (after the cache), the new token itself
    const keys = [proj(x0, 'k'), ek.slice(0, C), ek.slice(C), proj(x1, 'k')].map((k) => Array.from(k));
    const vals = [proj(x0, 'v'), ev.slice(0, C), ev.slice(C), proj(x1, 'v')].map((v) => Array.from(v));
    const q = proj(x1, 'q');
    const s = keys.map((k) => dot(q, k) / Math.sqrt(C));
    const e = s.map((v) => Math.exp(v - Math.max(...s)));
    const p = e.map((v) => v / e.reduce((a, b) => a + b, 0));
    const y = Array.from({ length: C }, (_, j) => vals.reduce((a, v, i) => a + p[i] * v[j], 0));
    const h = add(x1, add(vecMat(y, P('h0.attn.wo'), C), P('h0.attn.bo')));
    const f = layerNorm(h, P('lnf.g'), P('lnf.b'), 1e-5);
    const expected = Array.from({ length: 6 }, (_, v) => dot(f, wte.slice(v * C, (v + 1) * C)));
    expectClose(logits, expected, { rtol: 1e-4, atol: 1e-5 });
    lm.dispose();
  });

  it('embedding injection with shift K equals feeding the latents as the next input positions', () => {
    const lm = new TinyLm(
      {
        vocabSize: 8,
        contextLength: 12,
        layers: 2,
        heads: 2,
        width: 8,
        mlpRatio: 2,
        dropout: 0,
        layerNormEps: 1e-5,
        initStd: 0.3,
      },
      new Rng(1),
    );
    tf.tidy(() => {
      const z = tf.randomNormal([1, 3, 8], 0, 1, 'float32', 7) as tf.Tensor3D;
      const prompt = encodePrompts(lm, [[1, 2]], 0);
      const viaChannel = continueBase(lm, prompt, { injection: 'embeddings', z }, [[3, 4]], 0, 3); // Liu's literal layout
      expect(viaChannel.offset).toBe(3);
      const full = lm.forward(
        tf.concat(
          [lm.embed(tf.tensor2d([[1, 2]], [1, 2], 'int32')), z, lm.embed(tf.tensor2d([[3, 4]], [1, 2], 'int32'))],
          1,
        ) as tf.Tensor3D,
      );
      expectClose(viaChannel.logits, tf.slice(full.logits, [0, 2, 0], [1, 5, -1]), { rtol: 1e-4, atol: 1e-5 });
    });
    lm.dispose();
  });

  it('embedding injection with shift 0: the inputs take the position ids right after the prompt', () => {
    const lm = new TinyLm(
      {
        vocabSize: 8,
        contextLength: 12,
        layers: 2,
        heads: 2,
        width: 8,
        mlpRatio: 2,
        dropout: 0,
        layerNormEps: 1e-5,
        initStd: 0.3,
      },
      new Rng(1),
    );
    tf.tidy(() => {
      const z = tf.randomNormal([1, 3, 8], 0, 1, 'float32', 7) as tf.Tensor3D;
      const viaChannel = continueBase(
        lm,
        encodePrompts(lm, [[1, 2]], 0),
        { injection: 'embeddings', z },
        [[3, 4]],
        0,
      ).logits;
      const embeds = tf.concat(
        [lm.embed(tf.tensor2d([[1, 2]], [1, 2], 'int32')), z, lm.embed(tf.tensor2d([[3, 4]], [1, 2], 'int32'))],
        1,
      ) as tf.Tensor3D;
      const full = lm.forward(embeds, { positions: tf.tensor2d([[0, 1, 2, 3, 4, 2, 3]], [1, 7], 'int32') });
      expectClose(viaChannel, tf.slice(full.logits, [0, 2, 0], [1, 5, -1]), { rtol: 1e-4, atol: 1e-5 });
    });
    lm.dispose();
  });

  it('left padding: a padded row gives the same logits as the row alone', () => {
    const lm = new TinyLm(
      {
        vocabSize: 8,
        contextLength: 12,
        layers: 2,
        heads: 2,
        width: 8,
        mlpRatio: 2,
        dropout: 0,
        layerNormEps: 1e-5,
        initStd: 0.3,
      },
      new Rng(2),
    );
    tf.tidy(() => {
      const kvOf = (B: number) =>
        [0, 1].map(() => ({
          k: tf.tile(tf.randomNormal([1, 2, 2, 4], 0, 1, 'float32', 5), [B, 1, 1, 1]) as tf.Tensor4D,
          v: tf.tile(tf.randomNormal([1, 2, 2, 4], 0, 1, 'float32', 6), [B, 1, 1, 1]) as tf.Tensor4D,
        }));
      const both = continueBase(
        lm,
        encodePrompts(lm, [[1, 2, 3], [4]], 0),
        { injection: 'kv', kv: kvOf(2) },
        [[5, 6], [6]],
        0,
      ).logits;
      const alone = continueBase(lm, encodePrompts(lm, [[4]], 0), { injection: 'kv', kv: kvOf(1) }, [[6]], 0).logits;
      expectClose(tf.slice(both, [1, 0, 0], [1, 1, -1]), alone, { rtol: 1e-4, atol: 1e-5 });
    });
    lm.dispose();
  });
});

describe('prompt cache width', () => {
  it('pads a long prompt batch to paddedWidth, and the continuation equals one forward without padding', () => {
    const C = 8;
    const lm = new TinyLm(
      {
        vocabSize: 7,
        contextLength: 32,
        layers: 2,
        heads: 2,
        width: C,
        mlpRatio: 2,
        dropout: 0,
        layerNormEps: 1e-5,
        initStd: 0.3,
      },
      new Rng(7),
    );
    const long = Array.from({ length: 17 }, (_, i) => 1 + (i % 5)); // 17 tokens: the cache is 18 wide
    tf.tidy(() => {
      const prompt = encodePrompts(lm, [long, [4]], 0);
      expect(prompt.cache.keyMask.shape).toEqual([2, 18]);
      expect(Array.from(prompt.cache.keyMask.dataSync()).slice(0, 2)).toEqual([0, 1]); // one more column of left padding
      expect(prompt.lengths).toEqual([17, 1]);
      const z = tf.randomNormal([2, 2, C], 0, 1, 'float32', 8) as tf.Tensor3D; // [B, K, C] embedding latents
      const got = continueBase(lm, prompt, { injection: 'embeddings', z }, [[5, 6], [6]], 0, 2).logits; // [2, 2 + 2, V], inputs after the latents (shift K)
      const whole = (row: number[], b: number, n: number) =>
        lm.forward(
          tf.concat(
            [
              lm.embed(tf.tensor2d([row], [1, row.length], 'int32')),
              tf.slice(z, [b, 0, 0], [1, -1, -1]),
              lm.embed(tf.tensor2d([[5, 6].slice(0, n)], [1, n], 'int32')),
            ],
            1,
          ) as tf.Tensor3D,
        ).logits; // [1, P + 2 + n, V], no padding, no cache
      const ref0 = whole(long, 0, 2);
      expectClose(tf.slice(got, [0, 0, 0], [1, -1, -1]), tf.slice(ref0, [0, 17, 0], [1, -1, -1]), {
        rtol: 1e-4,
        atol: 1e-5,
      });
      const ref1 = lm.forward(
        tf.concat(
          [
            lm.embed(tf.tensor2d([[4]], [1, 1], 'int32')),
            tf.slice(z, [1, 0, 0], [1, -1, -1]),
            lm.embed(tf.tensor2d([[6]], [1, 1], 'int32')),
          ],
          1,
        ) as tf.Tensor3D,
      ).logits; // [1, 1 + 2 + 1, V]
      expectClose(tf.slice(got, [1, 0, 0], [1, 3, -1]), tf.slice(ref1, [0, 1, 0], [1, -1, -1]), {
        rtol: 1e-4,
        atol: 1e-5,
      });
    });
    lm.dispose();
  });
});

describe('controls on KV latents', () => {
  it('shuffle moves whole positions (all layers, keys and values) between examples; zero and random keep shapes', async () => {
    const kv = tf.tidy(() =>
      [0, 1].map((l) => ({
        k: tf.randomNormal([3, 2, 4, 5], 0, 1, 'float32', 10 + l) as tf.Tensor4D,
        v: tf.randomNormal([3, 2, 4, 5], 0, 1, 'float32', 20 + l) as tf.Tensor4D,
      })),
    );
    await expectNoLeak(() =>
      tf.tidy(() => {
        const sh = controlLatents({ injection: 'kv', kv }, 'shuffle', new Rng(0));
        if (sh.injection !== 'kv') throw new Error('kind');
        const src = [0, 1, 2].find(
          (b) =>
            tf.tidy(
              () => tf.max(tf.abs(tf.sub(tf.slice(sh.kv[0].k, [0], [1]), tf.slice(kv[0].k, [b], [1])))).dataSync()[0],
            ) === 0,
        );
        expect(src).toBeDefined();
        expect(src).not.toBe(0);
        for (const l of [0, 1])
          for (const w of ['k', 'v'] as const)
            expectClose(tf.slice(sh.kv[l][w], [0], [1]), tf.slice(kv[l][w], [src!], [1]));
        for (const control of ['zero', 'random'] as const) {
          const c = controlLatents({ injection: 'kv', kv }, control, new Rng(1));
          if (c.injection !== 'kv') throw new Error('kind');
          expect(c.kv.map((x) => x.k.shape)).toEqual(kv.map((x) => x.k.shape));
          if (control === 'zero') expect(tf.sum(tf.abs(c.kv[1].v)).dataSync()[0]).toBe(0);
        }
      }),
    );
    tf.dispose(kv.flatMap((x) => [x.k, x.v]));
  });

  it("random matches the norm of every layer's keys and values at every latent position, not one norm over all layers", () => {
    // Layer 1 ten times larger than layer 0, as the layers' scales of a trained Base differ.
    const kv = tf.tidy(() =>
      [1, 10].map((scale, l) => ({
        k: tf.mul(tf.randomNormal([3, 2, 4, 5], 0, 1, 'float32', 30 + l), scale) as tf.Tensor4D,
        v: tf.mul(tf.randomNormal([3, 2, 4, 5], 0, 1, 'float32', 40 + l), scale) as tf.Tensor4D,
      })),
    );
    const norms = (t: tf.Tensor4D) => tf.tidy(() => Array.from(tf.sqrt(tf.sum(tf.square(t), [1, 3])).dataSync())); // per (example, position) over heads × head width
    const c = controlLatents({ injection: 'kv', kv }, 'random', new Rng(2));
    if (c.injection !== 'kv') throw new Error('kind');
    for (const l of [0, 1]) {
      for (const w of ['k', 'v'] as const) {
        const want = norms(kv[l][w]);
        norms(c.kv[l][w]).forEach((n, i) => expect(n).toBeCloseTo(want[i], 3));
        expect(tf.tidy(() => tf.max(tf.abs(tf.sub(c.kv[l][w], kv[l][w]))).dataSync()[0])).toBeGreaterThan(0.1); // new directions
      }
    }
    tf.dispose([...kv.flatMap((x) => [x.k, x.v]), ...c.kv.flatMap((x) => [x.k, x.v])]);
  });
});
