import { encodeExample, initBackend, Rng } from '@telepath/core';
import { expectClose, expectNoLeak, toyAdditionExamples } from '@telepath/core/testing';
import { cot } from '@telepath/cot';
import { tinyLmFor } from '@telepath/cot/testing';
import { beforeAll, describe, expect, it } from 'vitest';
import { CHAIN_END, tokenLosses } from './token-loss.js';

beforeAll(async () => {
  await initBackend('cpu', { quiet: true });
});

describe('tokenLosses', () => {
  it("splits the reference's own training loss by target token, the chain's last token apart", async () => {
    const examples = toyAdditionExamples(10);
    const { lm, tokenizer } = tinyLmFor(examples, 64);
    const state = cot.init({ lm, tokenizer, rng: new Rng(0), backend: 'cpu' }, { ...cot.defaults, variant: 'cot' });
    const table = await expectNoLeak(() => tokenLosses(lm, tokenizer, examples, true, 4));
    // The mean over every scored token is the loss the CoT reference trains on.
    const trained = cot.loss(state, examples, { step: 0, phase: 'sft', rng: new Rng(0) });
    expectClose(table.meanLoss, trained.dataSync()[0], { rtol: 1e-5, atol: 1e-6 });
    trained.dispose();
    const scored = examples.reduce((a, ex) => {
      const e = encodeExample(tokenizer, ex);
      return a + e.reasoning.length + e.answer.length;
    }, 0);
    expect(table.tokens).toBe(scored);
    expect(table.rows.reduce((a, r) => a + r.count, 0)).toBe(scored);
    expectClose(
      table.rows.reduce((a, r) => a + r.share, 0),
      1,
      { atol: 1e-9 },
    );
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
