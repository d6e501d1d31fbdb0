/**
 * Position ids of the Base's answer after the latents (config.answerPositions). With
 * 'after-latents' the answer follows the N_L latents, as Liu appends them to the cache: prompt,
 * latents and ### then read exactly like one sequence of embeddings at positions 0..n+K; the
 * default 'overlap' (measured better, rotary and learned) keeps the answer at the prompt's offsets.
 */
import * as tf from '@tensorflow/tfjs-core';
import { initBackend, Rng } from '@telepath/core';
import { beforeAll, describe, expect, it } from 'vitest';
import { answerShift, continueBase, encodePrompts } from './model.js';
import { coprocessor } from './method.js';
import { toyBase, toyExamples } from './testing.js';

beforeAll(async () => {
  await initBackend('cpu', { quiet: true });
});

const data = toyExamples(8);

describe('answer positions', () => {
  it("default: the answer overlaps the latents' ids under both position kinds (measured better under rotary too); after-latents shifts it by N_L", () => {
    for (const positions of ['rotary', 'learned'] as const) {
      const { lm, tokenizer } = toyBase(data, 0, 2, positions);
      const s = coprocessor.init(
        { lm, tokenizer, rng: new Rng(0), backend: 'cpu' },
        { ...coprocessor.defaults, latentTokens: 3 },
      );
      expect(answerShift(s), positions).toBe(0);
      expect(answerShift({ ...s, config: { ...s.config, answerPositions: 'after-latents' } }), positions).toBe(3);
      s.dispose();
    }
    const { lm, tokenizer } = toyBase(data);
    expect(() =>
      coprocessor.init(
        { lm, tokenizer, rng: new Rng(0), backend: 'cpu' },
        { ...coprocessor.defaults, answerPositions: 'late' as never },
      ),
    ).toThrow(/answerPositions "late". Expected one of: overlap, after-latents/);
    lm.dispose();
  });

  it('rotary, after-latents: the answer reads prompt and latents as one sequence at positions 0..n+K (overlap does not)', () => {
    const { lm, tokenizer } = toyBase(data, 1, 2, 'rotary');
    const K = 3;
    const prompt = [tokenizer.bosId, ...tokenizer.encode(`${data[0].question}\n`)];
    const z = tf.tensor3d(new Rng(2).normalArray(K * 16, 0.1), [1, K, 16]); // [1, K, C] latents as input embeddings
    const atAnswer = (shift: number) =>
      tf.tidy(() => {
        const cache = encodePrompts(lm, [prompt], tokenizer.padId);
        const { logits } = continueBase(
          lm,
          cache,
          { injection: 'embeddings', z },
          [[tokenizer.sepId]],
          tokenizer.padId,
          shift,
        ); // [1, K + 1, V]
        return Array.from(tf.slice(logits, [0, K, 0], [1, 1, -1]).dataSync());
      });
    const whole = tf.tidy(() => {
      const embeds = tf.concat(
        [
          lm.embed(tf.tensor2d([prompt], [1, prompt.length], 'int32')),
          z,
          lm.embed(tf.tensor2d([[tokenizer.sepId]], [1, 1], 'int32')),
        ],
        1,
      ) as tf.Tensor3D;
      const { logits } = lm.forward(embeds); // positions 0..n+K
      return Array.from(tf.slice(logits, [0, prompt.length + K, 0], [1, 1, -1]).dataSync());
    });
    const after = atAnswer(K);
    after.forEach((v, i) => expect(v).toBeCloseTo(whole[i], 4));
    const overlap = atAnswer(0);
    expect(Math.max(...overlap.map((v, i) => Math.abs(v - whole[i])))).toBeGreaterThan(1e-3);
    z.dispose();
    lm.dispose();
  });
});
