/**
 * Liu's ahead-token objective (arXiv 2412.17747 Fig. 2) on a hand-made sequence: the latents come
 * after token t, the last latent predicts token t+1 and the next N_A − 1 tokens are predicted
 * after it — with embedding injection exactly one causal sequence [x_0..x_t, z_1..z_K, x_t+1..].
 */
import * as tf from '@tensorflow/tfjs-core';
import { encodeExample, initBackend, Rng, type Example } from '@telepath/core';
import { beforeAll, describe, expect, it } from 'vitest';
import { aheadRows, channelLoss } from './loss.js';
import { latentsFor } from './model.js';
import { coprocessor } from './method.js';
import type { CoprocessorState } from './state.js';
import { toyBase, toyExamples } from './testing.js';

beforeAll(async () => {
  await initBackend('cpu', { quiet: true });
});

const data = toyExamples(16);
const handMade: Example = { id: 'h', question: data[0].question, steps: data[0].steps, answer: data[0].answer };

function setup(variant: 'liu' | 'h1'): CoprocessorState {
  const { lm, tokenizer } = toyBase(data, 3, 2, 'rotary');
  return coprocessor.init(
    { lm, tokenizer, rng: new Rng(1), backend: 'cpu' },
    { ...coprocessor.defaults, variant, latentTokens: 2, aheadTokens: 3, answerPositions: 'after-latents' },
  );
}

describe("Liu's ahead-token objective", () => {
  it('rows: prefix up to token t, then the next N_A tokens; KV injection feeds token t as a cue', () => {
    for (const variant of ['liu', 'h1'] as const) {
      const s = setup(variant);
      const e = encodeExample(s.tokenizer, handMade);
      const ids = [...e.prompt, ...e.reasoning, ...e.answer];
      const rows = aheadRows(s, Array(50).fill(handMade), new Rng(4));
      for (const r of rows) {
        const t = variant === 'liu' ? r.prefix.length - 1 : r.prefix.length;
        expect([...r.prefix, ...r.continuation]).toEqual(ids.slice(0, r.prefix.length + r.continuation.length));
        expect(r.cue).toBe(variant === 'h1');
        expect(r.continuation.length).toBe(
          variant === 'liu' ? Math.min(3, ids.length - t - 1) : Math.min(4, ids.length - t),
        );
        expect(t).toBeGreaterThanOrEqual(1);
        expect(t).toBeLessThanOrEqual(ids.length - 2);
      }
      expect(new Set(rows.map((r) => r.prefix.length)).size).toBeGreaterThan(5); // augmentation points spread over the text
      s.dispose();
    }
  });

  it("aheadText 'without-steps': the text the No-CoT Base was trained on (prompt and answer), never the steps", () => {
    const { lm, tokenizer } = toyBase(data, 3, 2, 'rotary');
    const s = coprocessor.init(
      { lm, tokenizer, rng: new Rng(1), backend: 'cpu' },
      { ...coprocessor.defaults, variant: 'liu', latentTokens: 2, aheadTokens: 3, aheadText: 'without-steps' },
    );
    const e = encodeExample(s.tokenizer, handMade);
    const text = [...e.prompt, ...e.answer];
    for (const r of aheadRows(s, Array(40).fill(handMade), new Rng(5)))
      expect([...r.prefix, ...r.continuation]).toEqual(text.slice(0, r.prefix.length + r.continuation.length));
    expect(() =>
      coprocessor.init(
        { lm, tokenizer, rng: new Rng(1), backend: 'cpu' },
        { ...coprocessor.defaults, aheadText: 'steps' as never },
      ),
    ).toThrow(/aheadText "steps". Expected one of: with-steps, without-steps/);
    s.dispose();
  });

  it('liu: the loss is the CE of one causal pass over [x_0..x_t, z, x_t+1..x_t+N_A], the last latent predicting x_t+1', () => {
    const s = setup('liu');
    const e = encodeExample(s.tokenizer, handMade);
    const ids = [...e.prompt, ...e.reasoning, ...e.answer];
    const t = 4;
    const ahead = ids.slice(t + 1, t + 4); // N_A = 3 targets
    const loss = tf.tidy(
      () => channelLoss(s, [{ prefix: ids.slice(0, t + 1), continuation: ahead, cue: false }]).dataSync()[0],
    );
    const manual = tf.tidy(() => {
      const z = latentsFor(s, [ids.slice(0, t + 1)]).latents;
      if (z.injection !== 'embeddings') throw new Error('liu injects embeddings');
      const embeds = tf.concat(
        [
          s.base.embed(tf.tensor2d([ids.slice(0, t + 1)], [1, t + 1], 'int32')),
          z.z,
          s.base.embed(tf.tensor2d([ahead], [1, 3], 'int32')),
        ],
        1,
      ) as tf.Tensor3D;
      const logp = tf.logSoftmax(s.base.forward(embeds).logits).arraySync() as number[][][]; // [1, t+1+K+3, V]
      const lastLatent = t + 2; // columns 0..t prompt, t+1..t+2 latents
      return -ahead.reduce((acc, id, j) => acc + logp[0][lastLatent + j][id], 0) / ahead.length;
    });
    expect(loss).toBeCloseTo(manual, 4);
    s.dispose();
  });
});
