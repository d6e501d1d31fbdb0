import * as tf from '@tensorflow/tfjs-core';
import { encodeExample, initBackend, Rng, type Example } from '@telepath/core';
import { cot } from '@telepath/cot';
import { tinyLmFor } from '@telepath/cot/testing';
import { beforeAll, describe, expect, it } from 'vitest';
import { CHAIN_END, tokenLosses } from './token-loss.js';

beforeAll(async () => {
  await initBackend('cpu', { quiet: true });
});

/** "add a b" with the one step "a+b=s" (a, b < 5). */
function additions(n: number): Example[] {
  const rng = new Rng(1);
  return Array.from({ length: n }, (_, i) => {
    const [a, b] = [rng.int(5), rng.int(5)];
    return { id: `t${i}`, question: `add ${a} ${b}`, steps: [`${a}+${b}=${a + b}`], answer: String(a + b) };
  });
}

describe('tokenLosses', () => {
  it("splits the reference's own training loss by target token, the chain's last token apart", async () => {
    const examples = additions(10);
    const { lm, tokenizer } = tinyLmFor(examples, 64);
    const state = cot.init({ lm, tokenizer, rng: new Rng(0), backend: 'cpu' }, { ...cot.defaults, variant: 'cot' });
    const before = tf.memory().numTensors;
    const table = await tokenLosses(lm, tokenizer, examples, true, 4);
    expect(tf.memory().numTensors).toBe(before); // no tensor left behind
    // The mean over every scored token is the loss the CoT reference trains on.
    const trained = cot.loss(state, examples, { step: 0, phase: 'sft', rng: new Rng(0) });
    expect(Math.abs(table.meanLoss - trained.dataSync()[0])).toBeLessThan(1e-5);
    trained.dispose();
    const scored = examples.reduce((a, ex) => {
      const e = encodeExample(tokenizer, ex);
      return a + e.reasoning.length + e.answer.length;
    }, 0);
    expect(table.tokens).toBe(scored);
    expect(table.rows.reduce((a, r) => a + r.count, 0)).toBe(scored);
    expect(Math.abs(table.rows.reduce((a, r) => a + r.share, 0) - 1)).toBeLessThan(1e-9);
    expect(table.rows.find((r) => r.target === CHAIN_END)?.count).toBe(examples.length); // one per chain
    for (let i = 1; i < table.rows.length; i++)
      expect(table.rows[i - 1].share).toBeGreaterThanOrEqual(table.rows[i].share);
    // No-CoT scores `### answer <eos>` only, and has no chain to end.
    const noCot = await tokenLosses(lm, tokenizer, examples, false, 4);
    expect(noCot.rows.some((r) => r.target === CHAIN_END)).toBe(false);
    expect(noCot.tokens).toBe(examples.reduce((a, ex) => a + encodeExample(tokenizer, ex).answer.length, 0));
    state.dispose();
  });
});
