import { beforeAll, expect, it } from 'vitest';
import { initBackend } from './backend.js';
import { decode, prefill } from './generate.js';
import { decodeGenerations, toGenerations } from './generations.js';
import { Rng } from './rng.js';
import { encodeExample, exampleTexts } from './sequence.js';
import { expectNoLeak, tinyLm, toyAdditionExamples } from './testing.js';
import { uniqueVariableName } from './tidy.js';
import { Tokenizer } from './tokenizer.js';

beforeAll(async () => {
  await initBackend('cpu', { quiet: true });
});

const data = toyAdditionExamples(3);
const tok = Tokenizer.build(exampleTexts(data));

it('toGenerations reads the answer after ### with the forced ids in front', () => {
  const ex = data[0];
  const e = encodeExample(tok, ex);
  const [g] = toGenerations(tok, [ex], [e.answer.slice(1)], [tok.sepId], (row, n) => ({
    reasoningLength: 10 * row + n,
    reasoningKind: 'tokens',
  }));
  expect(g).toEqual({
    id: ex.id,
    answer: ex.answer,
    text: tok.decode(e.answer),
    reasoningLength: 0,
    reasoningKind: 'tokens',
  });
  const [withSteps] = toGenerations(tok, [ex], [[...e.reasoning, ...e.answer]], [], (_, n) => ({
    reasoningLength: n,
    reasoningKind: 'tokens',
  }));
  expect(withSteps.answer).toBe(ex.answer);
  expect(withSteps.reasoningLength).toBe(e.reasoning.length);
});

it('decodeGenerations decodes what decode does from the same prefix, frees the logits and caps at the context', async () => {
  const lm = tinyLm({ vocabSize: tok.size, contextLength: 24, initStd: 0.5 });
  const prompts = data.map((ex) => encodeExample(tok, ex).prompt);
  const direct = prefill(lm, prompts, tok.padId);
  const want = await decode(lm, direct.cache, direct.lastLogits, direct.positions, {
    maxNewTokens: 5,
    padId: tok.padId,
    stopTokens: [tok.eosId],
  });
  direct.lastLogits.dispose();
  const gens = await expectNoLeak(() => {
    const start = prefill(lm, prompts, tok.padId);
    return decodeGenerations(lm, tok, data, start, {
      maxNewTokens: 5,
      temperature: 0,
      topP: 1,
      rng: new Rng(0),
      forced: [],
      latents: 3,
    });
  });
  expect(gens.map((g) => g.text)).toEqual(want.tokens.map((t) => tok.decode(t)));
  expect(gens.every((g) => g.reasoningLength === 3 && g.reasoningKind === 'latents')).toBe(true);
  const room = 24 - Math.max(...prompts.map((p) => p.length));
  const full = prefill(lm, prompts, tok.padId);
  const atRoom = await decode(lm, full.cache, full.lastLogits, full.positions, {
    maxNewTokens: room,
    padId: tok.padId,
    stopTokens: [tok.eosId],
  });
  full.lastLogits.dispose();
  const capped = await decodeGenerations(lm, tok, data, prefill(lm, prompts, tok.padId), {
    maxNewTokens: 100,
    temperature: 0,
    topP: 1,
    rng: new Rng(0),
    forced: [],
    latents: 0,
  });
  expect(capped.map((g) => g.text)).toEqual(atRoom.tokens.map((t) => tok.decode(t)));
  lm.dispose();
});

it('uniqueVariableName never repeats a name', () => {
  const names = Array.from({ length: 5 }, () => uniqueVariableName('x.y'));
  expect(new Set(names).size).toBe(5);
  expect(names[0]).toMatch(/^x\.y#\d+$/);
});
