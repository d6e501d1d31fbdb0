import * as tf from '@tensorflow/tfjs-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { initBackend } from './backend.js';
import { generate } from './generate.js';
import { Rng } from './rng.js';
import { expectNoLeak, tinyLm } from './testing.js';
import type { TinyLm } from './tiny-lm.js';

beforeAll(async () => {
  await initBackend('cpu', { quiet: true });
});

/** Greedy decoding by recomputing the whole sequence at every step (no cache). */
function greedyNoCache(lm: TinyLm, prompt: number[], n: number): number[] {
  const seq = [...prompt];
  for (let i = 0; i < n; i++) {
    const next = tf.tidy(() => {
      const logits = lm.forward(lm.embed(tf.tensor2d([seq], [1, seq.length], 'int32'))).logits;
      return tf.argMax(tf.slice(logits, [0, seq.length - 1, 0], [1, 1, -1]), -1).dataSync()[0];
    });
    seq.push(next);
  }
  return seq.slice(prompt.length);
}

describe('generate', () => {
  it('greedy decoding with the cache equals recomputation, for left-padded batches too', async () => {
    const lm = tinyLm({ initStd: 0.5 });
    const prompts = [
      [3, 4, 5, 6],
      [7, 8],
    ];
    const out = await expectNoLeak(() => generate(lm, prompts, { maxNewTokens: 6, padId: 0 }));
    expect(out.tokens[0]).toEqual(greedyNoCache(lm, prompts[0], 6));
    expect(out.tokens[1]).toEqual(greedyNoCache(lm, prompts[1], 6));
    expect(out.stopped).toEqual([false, false]);
    lm.dispose();
  });

  it('stops a row at a stop token and respects the length cap', async () => {
    const lm = tinyLm({ initStd: 0.5 });
    const free = (await generate(lm, [[3, 4, 5]], { maxNewTokens: 5, padId: 0 })).tokens[0];
    const stop = free[2];
    const out = await generate(lm, [[3, 4, 5]], { maxNewTokens: 5, padId: 0, stopTokens: [stop] });
    expect(out.tokens[0]).toEqual(free.slice(0, free.indexOf(stop) + 1));
    expect(out.stopped[0]).toBe(true);
    expect((await generate(lm, [[3]], { maxNewTokens: 2, padId: 0 })).tokens[0]).toHaveLength(2);
    lm.dispose();
  });

  it('samples reproducibly with a seed; top-p → 0 equals greedy', async () => {
    const lm = tinyLm({ initStd: 0.5 });
    const a = await generate(lm, [[3, 4]], { maxNewTokens: 8, padId: 0, temperature: 1, topP: 0.9, rng: new Rng(1) });
    const b = await generate(lm, [[3, 4]], { maxNewTokens: 8, padId: 0, temperature: 1, topP: 0.9, rng: new Rng(1) });
    expect(a.tokens).toEqual(b.tokens);
    const nucleus = await generate(lm, [[3, 4]], {
      maxNewTokens: 8,
      padId: 0,
      temperature: 1,
      topP: 1e-9,
      rng: new Rng(2),
    });
    expect(nucleus.tokens[0]).toEqual((await generate(lm, [[3, 4]], { maxNewTokens: 8, padId: 0 })).tokens[0]);
    await expect(generate(lm, [[3, 4]], { maxNewTokens: 2, padId: 0, temperature: 1 })).rejects.toThrow(/needs an rng/);
    lm.dispose();
  });

  it('stops at the end of the context instead of failing', async () => {
    const lm = tinyLm();
    const out = await generate(lm, [Array.from({ length: 14 }, (_, i) => i + 1)], { maxNewTokens: 10, padId: 0 });
    expect(out.tokens[0].length).toBe(3);
    lm.dispose();
  });

  describe('rows that stop leave the batch', () => {
    const prompts = [[3, 4, 5], [6, 7], [8, 9, 10, 11], [12], [5, 3], [9, 2, 4]];
    /** Each row truncated after its first token in `stops`. */
    const truncated = (rows: number[][], stops: Set<number>) =>
      rows.map((r) => {
        const i = r.findIndex((t) => stops.has(t));
        return i < 0 ? r : r.slice(0, i + 1);
      });
    /** Stop tokens that end rows at different steps: some rows early, at least one never. */
    function stopsFor(free: number[][]): Set<number> {
      const seen = [...new Set(free.flat())];
      const candidates = [...seen.map((t) => [t]), ...seen.flatMap((t, i) => seen.slice(i + 1).map((u) => [t, u]))];
      for (const c of candidates) {
        const stops = new Set(c);
        const lengths = truncated(free, stops).map((r) => r.length);
        const early = lengths.filter((l) => l < 10).length;
        if (early >= free.length / 2 && lengths.some((l, b) => l === free[b].length && !stops.has(free[b][l - 1])))
          return stops;
      }
      throw new Error('no stop tokens end half the rows early and one never; change the prompts');
    }

    it('greedy: each row as decoded alone without a cache, stopping at its own step', async () => {
      const lm = tinyLm({ initStd: 0.5 });
      const free = prompts.map((p) => greedyNoCache(lm, p, 12));
      const stops = stopsFor(free);
      const out = await expectNoLeak(() =>
        generate(lm, prompts, { maxNewTokens: 12, padId: 0, stopTokens: [...stops] }),
      );
      expect(out.tokens).toEqual(truncated(free, stops));
      expect(out.stopped).toEqual(out.tokens.map((r) => stops.has(r[r.length - 1])));
      lm.dispose();
    });

    it('sampled: each row draws what it draws when no row stops', async () => {
      const lm = tinyLm({ initStd: 0.5 });
      const sample = (stopTokens: number[]) =>
        generate(lm, prompts, { maxNewTokens: 12, padId: 0, stopTokens, temperature: 1, topP: 0.95, rng: new Rng(7) });
      const free = (await sample([])).tokens;
      const stops = stopsFor(free);
      const out = await expectNoLeak(() => sample([...stops]));
      expect(out.tokens).toEqual(truncated(free, stops));
      lm.dispose();
    });
  });
});
