import * as tf from '@tensorflow/tfjs-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generate, initBackend, maskedCrossEntropy, packSegments } from '@telepath/core';
import { expectClose, expectNoLeak, toyAdditionExamples } from '@telepath/core/testing';
import {
  agentSegments,
  agentStates,
  embeddingNorm,
  prefixedForward,
  prefixedTeacherForcing,
  promptIds,
  respond,
  type Agent,
} from './agents.js';
import { tinyAgents } from './testing.js';

beforeAll(async () => {
  await initBackend('cpu', { quiet: true });
});

const examples = toyAdditionExamples(6);
let a: Agent;
beforeAll(() => {
  [a] = tinyAgents(1, examples);
});
afterAll(() => a.lm.dispose());

/** A [1, m, C] prefix (0.3 · wave(i)) and the first example's prompt ids. */
function prefixAndPrompt(m: number, wave: (i: number) => number): { prefix: tf.Tensor3D; row: number[]; T: number } {
  const prefix = tf.tensor3d(
    Array.from({ length: m * 8 }, (_, i) => 0.3 * wave(i)),
    [1, m, 8],
  ); // [1, m, C]
  const row = promptIds(a, examples[0]);
  return { prefix, row, T: row.length };
}

describe('agents', () => {
  it('answer without a prefix exactly as core generation does', async () => {
    const r = await expectNoLeak(() => respond(a, examples, null, { maxNewTokens: 5 }));
    const ref = await generate(
      a.lm,
      examples.map((ex) => promptIds(a, ex)),
      { maxNewTokens: 5, padId: a.tokenizer.padId, stopTokens: [a.tokenizer.eosId] },
    );
    expect(r.responses).toEqual(ref.tokens);
    expect(r.transcripts[0]).toEqual([...promptIds(a, examples[0]), ...ref.tokens[0]]);
  });

  it("a row's states do not depend on the other rows (padding is masked, positions count from the row's start)", async () => {
    const prefix = tf.tensor3d(
      Array.from({ length: 2 * 2 * 8 }, (_, i) => Math.sin(i)),
      [2, 2, 8],
    ); // [B, m, C]
    const rows = [promptIds(a, examples[0]), [...promptIds(a, examples[1]), 5, 6, 7]];
    const both = await expectNoLeak(() => agentStates(a.lm, rows, 1, prefix, a.tokenizer.padId), { allowed: 1 }); // [2, C]
    const alone = agentStates(
      a.lm,
      [rows[0]],
      1,
      tf.slice(prefix, [0, 0, 0], [1, -1, -1]) as tf.Tensor3D,
      a.tokenizer.padId,
    );
    expectClose(tf.slice(both, [0, 0], [1, -1]), alone, { atol: 1e-5 });
    const noPrefix = agentStates(a.lm, [rows[0]], 1, null, a.tokenizer.padId);
    expect(tf.max(tf.abs(tf.sub(noPrefix, alone))).dataSync()[0]).toBeGreaterThan(1e-3); // the prefix is seen
    tf.dispose([prefix, both, alone, noPrefix]);
  });

  it('teacher forcing behind a prefix shifts targets and masks by m; without one it is a plain forward', () => {
    const p = packSegments(
      examples.slice(0, 3).map((ex) => agentSegments(a, ex)),
      a.tokenizer.padId,
    );
    const prefix = tf.ones([3, 1, 8]) as tf.Tensor3D;
    const withP = prefixedTeacherForcing(a.lm, prefix, p);
    const without = prefixedTeacherForcing(a.lm, null, p);
    const plain = a.lm.forward(a.lm.embed(p.ids));
    const [B, T] = p.ids.shape;
    expect(withP.logits.shape).toEqual([B, T + 1, plain.logits.shape[2]]);
    expect((withP.targets.arraySync() as number[][]).map((r) => r.slice(1))).toEqual(p.targets.arraySync());
    expect((withP.lossMask.arraySync() as number[][]).map((r) => r[0])).toEqual([0, 0, 0]);
    expect((withP.tokenMask.arraySync() as number[][]).map((r) => r[0])).toEqual([0, 0, 0]);
    expectClose(without.logits, plain.logits, { atol: 1e-5 });
    expectClose(
      maskedCrossEntropy(without.logits, without.targets, without.lossMask),
      maskedCrossEntropy(plain.logits, p.targets, p.lossMask),
      { atol: 1e-6 },
    );
    tf.dispose([
      prefix,
      withP.logits,
      ...withP.hidden,
      withP.targets,
      withP.lossMask,
      withP.tokenMask,
      without.logits,
      ...without.hidden,
      plain.logits,
      ...plain.hidden,
      p.ids,
      p.targets,
      p.lossMask,
      p.attentionMask,
    ]);
    tf.dispose([...plain.cache.layers.flat().flatMap((l): tf.Tensor[] => [l.k, l.v]), plain.cache.keyMask]);
  });

  it('the prefix has its own position ids 0 … m−1 and the prompt follows it, as one prepended sequence of embeddings', () => {
    const m = 2;
    const { prefix, row, T } = prefixAndPrompt(m, Math.cos);
    const plain = tf.tidy(
      () => a.lm.forward(tf.concat([prefix, a.lm.embed(tf.tensor2d([row], [1, T], 'int32'))], 1) as tf.Tensor3D).logits,
    ); // positions 0 … m+T−1
    const out = prefixedForward(a.lm, [row], prefix, a.tokenizer.padId);
    expectClose(out.logits, plain, { atol: 1e-5 });
    expect(out.positions).toEqual([m + T]); // where decoding continues
    const p = packSegments([[{ ids: row, trained: true }]], a.tokenizer.padId, a.lm.config.contextLength);
    const tf2 = prefixedTeacherForcing(a.lm, prefix, p);
    const fed = tf2.logits.shape[1]; // packSegments feeds the row without its last token
    expectClose(tf.slice(tf2.logits, [0, 0, 0], [1, fed, -1]), tf.slice(plain, [0, 0, 0], [1, fed, -1]), {
      atol: 1e-5,
    });
    tf.dispose([
      prefix,
      plain,
      out.logits,
      ...out.hidden,
      ...out.cache.layers.flat().flatMap((l): tf.Tensor[] => [l.k, l.v]),
      out.cache.keyMask,
      tf2.logits,
      ...tf2.hidden,
      tf2.targets,
      tf2.lossMask,
      tf2.tokenMask,
      p.ids,
      p.targets,
      p.lossMask,
      p.attentionMask,
    ]);
  });

  it("'shared' keeps the prompt at the position ids it was trained with and the prefix at 0 … m−1; decoding and teacher forcing agree", async () => {
    const m = 2;
    const { prefix, row, T } = prefixAndPrompt(m, Math.sin);
    const ids = [...Array.from({ length: m }, (_, k) => k), ...row.map((_, t) => t)]; // prefix 0 … m−1, prompt 0 … T−1
    const plain = tf.tidy(
      () =>
        a.lm.forward(tf.concat([prefix, a.lm.embed(tf.tensor2d([row], [1, T], 'int32'))], 1) as tf.Tensor3D, {
          positions: tf.tensor2d([ids], [1, m + T], 'int32'),
        }).logits,
    );
    const shared = prefixedForward(a.lm, [row], prefix, a.tokenizer.padId, 'shared');
    const after = prefixedForward(a.lm, [row], prefix, a.tokenizer.padId);
    expectClose(shared.logits, plain, { atol: 1e-5 });
    expect(shared.positions).toEqual([T]);
    // the prompt's embedding-layer states (token + learned position) are those without a prefix; 'after' moves them
    const alone = prefixedForward(a.lm, [row], null, a.tokenizer.padId);
    const tail = (h: tf.Tensor3D) => tf.slice(h, [0, m, 0], [1, T, -1]);
    expectClose(tail(shared.hidden[0]), alone.hidden[0], { atol: 1e-6 });
    expect(tf.max(tf.abs(tf.sub(tail(after.hidden[0]), alone.hidden[0]))).dataSync()[0]).toBeGreaterThan(1e-3);
    // teacher forcing numbers the positions the same way
    const p = packSegments([[{ ids: row, trained: true }]], a.tokenizer.padId, a.lm.config.contextLength);
    const forced = prefixedTeacherForcing(a.lm, prefix, p, 'shared');
    const fed = forced.logits.shape[1];
    expectClose(tf.slice(forced.logits, [0, 0, 0], [1, fed, -1]), tf.slice(plain, [0, 0, 0], [1, fed, -1]), {
      atol: 1e-5,
    });
    // greedy decoding continues from position T: its answer is the argmax of a teacher-forced pass over prompt + answer
    const sharedAgent: Agent = { ...a, prefixPositions: 'shared' };
    const r = await respond(sharedAgent, [examples[0]], prefix, { maxNewTokens: 4 });
    const full = [...row, ...r.responses[0]];
    const check = prefixedForward(a.lm, [full], prefix, a.tokenizer.padId, 'shared');
    const argmax = tf.argMax(check.logits, 2).arraySync() as number[][];
    expect(r.responses[0]).toEqual(argmax[0].slice(m + T - 1, m + full.length - 1));
    tf.dispose([prefix, plain, forced.logits, ...forced.hidden, forced.targets, forced.lossMask, forced.tokenMask]);
    tf.dispose([p.ids, p.targets, p.lossMask, p.attentionMask]);
    for (const o of [shared, after, alone, check])
      tf.dispose([o.logits, ...o.hidden, ...o.cache.layers.flat().flatMap((l): tf.Tensor[] => [l.k, l.v]), o.cache.keyMask]);
  });

  it('prefixed forward refuses rows that do not fit the context', () => {
    const long = Array.from({ length: 40 }, () => 5);
    expect(() => prefixedForward(a.lm, [long], null, a.tokenizer.padId)).toThrow(/exceed contextLength/);
  });

  it('embedding norm is the mean row norm of wte', async () => {
    const wte = a.lm.params.get('wte')!.arraySync() as number[][];
    const mean = wte.reduce((s, r) => s + Math.hypot(...r), 0) / wte.length;
    expect(await embeddingNorm(a.lm)).toBeCloseTo(mean, 5);
  });
});
