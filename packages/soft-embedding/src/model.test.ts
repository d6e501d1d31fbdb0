import * as tf from '@tensorflow/tfjs-core';
import { encodeExample, initBackend, Rng, type Example } from '@telepath/core';
import { expectClose, expectNoLeak } from '@telepath/core/testing';
import { beforeAll, describe, expect, it } from 'vitest';
import { continuousRows, softTokenRows, softTokensLoss } from './loss.js';
import { alignBatch, disposeAligned, type AlignedRow } from './layout.js';
import { continuousForward, softTokenForward } from './model.js';
import type { SoftEmbeddingState } from './state.js';
import { toyExamples, toyState } from './testing.js';

beforeAll(async () => {
  await initBackend('cpu', { quiet: true });
});

const at = { step: 0, phase: 'sft', rng: new Rng(0) };

/** Examples with different prompt lengths, so the batch has left padding (the longest one long enough for paddedWidth to add a column). */
function mixed(): Example[] {
  const d = toyExamples(4);
  return [
    d[0],
    { ...d[1], question: `sum ${d[1].question.slice(4)} ok` },
    { ...d[2], question: 'sum 1' },
    { ...d[3], question: `sum ${'1 2 '.repeat(8)}3` },
  ];
}

function align(s: SoftEmbeddingState, rows: AlignedRow[], teacherForcing: boolean) {
  return alignBatch(rows, {
    padId: s.tokenizer.padId,
    latentId: s.tokenizer.id('latent'),
    contextLength: s.lm.config.contextLength,
    teacherForcing,
  });
}

describe('soft tokens', () => {
  it('shapes: logits [B, T, V] and hidden [B, T, C] over prompt, N_L slots and answer', () => {
    const { data, state } = toyState({ variant: 'soft-tokens', latentTokens: 4 });
    tf.tidy(() => {
      const b = align(state, softTokenRows(state, data.slice(0, 3)), true);
      const z = tf.tile(tf.expandDims(state.soft!, 0), [3, 1, 1]) as tf.Tensor3D;
      const out = softTokenForward(state.lm, b, z);
      const T = b.ids.shape[1];
      expect(state.soft!.shape).toEqual([4, 16]);
      expect(out.logits.shape).toEqual([3, T, state.tokenizer.size]);
      expect(out.hidden[2].shape).toEqual([3, T, 16]);
      disposeAligned(b);
    });
    state.dispose();
  });

  it('gradients reach the soft tokens and match a finite difference', () => {
    const { data, state } = toyState({ variant: 'soft-tokens', latentTokens: 3 });
    const batch = data.slice(0, 4);
    const soft = state.soft!;
    const { grads } = tf.variableGrads(() => softTokensLoss(state, batch, at), [soft]);
    const g = grads[soft.name].arraySync() as number[][];
    expect(g.every((row) => row.some((v) => Math.abs(v) > 1e-6))).toBe(true); // every slot gets gradient
    const base = soft.arraySync() as number[][];
    const eps = 1e-2;
    const lossAt = (delta: number) => {
      const moved = base.map((row) => [...row]);
      moved[1][2] += delta;
      soft.assign(tf.tensor2d(moved));
      return tf.tidy(() => softTokensLoss(state, batch, at).dataSync()[0]);
    };
    const fd = (lossAt(eps) - lossAt(-eps)) / (2 * eps);
    soft.assign(tf.tensor2d(base));
    expectClose(g[1][2], fd, { rtol: 2e-2, atol: 1e-4 });
    tf.dispose(Object.values(grads));
    state.dispose();
  });
});

describe('continuous thought', () => {
  /** Coconut by hand, one example, no cache, no padding: thought k+1 = last hidden state after feeding thoughts 1..k. */
  function manual(
    s: SoftEmbeddingState,
    ex: Example,
    K: number,
    rest: number[],
  ): { thoughts: number[][]; logits: number[][] } {
    return tf.tidy(() => {
      const ids = (xs: number[]) => tf.tensor2d(xs, [1, xs.length], 'int32');
      let embeds = s.lm.embed(ids([...encodeExample(s.tokenizer, ex).prompt, s.tokenizer.id('bot')])); // [1, P, C]
      const thoughts: number[][] = [];
      for (let k = 0; k < K; k++) {
        const hs = s.lm.forward(embeds).hidden;
        const post = hs[s.lm.config.layers]; // [1, t, C] after the final LayerNorm
        const h = tf.reshape(tf.slice(post, [0, post.shape[1] - 1, 0], [1, 1, -1]), [1, -1]); // [1, C]
        thoughts.push(Array.from(h.dataSync()));
        embeds = tf.concat([embeds, tf.expandDims(h, 1) as tf.Tensor3D], 1);
      }
      embeds = tf.concat([embeds, s.lm.embed(ids(rest))], 1);
      return { thoughts, logits: s.lm.forward(embeds).logits.arraySync()[0] as number[][] };
    });
  }

  it('feedback equals a step-by-step computation without cache, in a left-padded batch', () => {
    const { state } = toyState({ variant: 'continuous-thought', latentTokens: 3, thoughtsPerStep: 1 });
    const batch = mixed();
    const final = 4; // past the last latent stage: 3 thoughts, no language steps
    const b = align(
      state,
      continuousRows(
        state,
        batch,
        batch.map(() => final),
      ),
      true,
    );
    const out = continuousForward(state.lm, b);
    const T = b.ids.shape[1];
    const widest = Math.max(...batch.map((ex) => encodeExample(state.tokenizer, ex).prompt.length + 1));
    expect(b.latentStart).toBeGreaterThan(widest); // the rounded width: one more column of left padding
    expect(out.thoughts.shape).toEqual([4, 3, 16]);
    expect(out.logits.shape).toEqual([4, T, state.tokenizer.size]);
    const thoughts = out.thoughts.arraySync() as number[][][];
    const logits = out.logits.arraySync() as number[][][];
    batch.forEach((ex, r) => {
      const e = encodeExample(state.tokenizer, { ...ex, steps: [] });
      const rest = [state.tokenizer.id('eot'), ...e.answer.slice(0, -1)]; // inputs after the slots (teacher forcing drops the last token)
      const m = manual(state, ex, 3, rest);
      expectClose(thoughts[r].flat(), m.thoughts.flat(), { rtol: 1e-4, atol: 1e-5 });
      const pad = b.latentStart - (e.prompt.length + 1);
      expectClose(logits[r].slice(pad, pad + m.logits.length).flat(), m.logits.flat(), { rtol: 1e-4, atol: 1e-4 });
    });
    tf.dispose([out.logits, out.thoughts, out.fed, ...out.cache.layers.flat().flatMap((l) => [l.k, l.v]), out.cache.keyMask]);
    disposeAligned(b);
    state.dispose();
  });

  it('rows with fewer thoughts keep their tokens in the unused slot columns (mixed stages)', () => {
    const { data, state } = toyState({ variant: 'continuous-thought', latentTokens: 2, thoughtsPerStep: 1 });
    const batch = data.slice(0, 2);
    tf.tidy(() => {
      const mixedBatch = align(state, continuousRows(state, batch, [2, 1]), true);
      const alone = align(state, continuousRows(state, [batch[1]], [1]), true);
      const a = continuousForward(state.lm, mixedBatch).logits.arraySync() as number[][][];
      const b = continuousForward(state.lm, alone).logits.arraySync() as number[][][];
      const pad = mixedBatch.latentStart - alone.latentStart;
      expectClose(a[1].slice(pad, pad + b[0].length).flat(), b[0].flat(), { rtol: 1e-4, atol: 1e-4 });
      disposeAligned(mixedBatch);
      disposeAligned(alone);
    });
    state.dispose();
  });

  it('gradients flow through the fed-back states, and the pass does not leak', async () => {
    const { data, state } = toyState({ variant: 'continuous-thought', latentTokens: 2, thoughtsPerStep: 1 });
    const b = align(state, continuousRows(state, data.slice(0, 2), [3, 3]), true);
    const wq = state.lm.params.get('h0.attn.wq')!;
    // the loss only on the answer; with the thoughts fed back, layer-0 weights act on the prompt and on every thought
    const { grads } = tf.variableGrads(() => tf.mean(continuousForward(state.lm, b).logits) as tf.Scalar, [wq]);
    expect(tf.tidy(() => tf.sum(tf.abs(grads[wq.name])).dataSync()[0])).toBeGreaterThan(0);
    tf.dispose(Object.values(grads));
    await expectNoLeak(() =>
      tf.tidy(() => {
        continuousForward(state.lm, b);
      }),
    );
    disposeAligned(b);
    state.dispose();
  });
});
