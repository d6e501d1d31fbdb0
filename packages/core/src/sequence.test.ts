import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as tf from '@tensorflow/tfjs-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { initBackend } from './backend.js';
import {
  answerFromIds,
  encodeExample,
  exampleTexts,
  leftPadRows,
  packSegments,
  paddedWidth,
  referenceSegments,
  type PackedBatch,
  runTokenizer,
} from './sequence.js';
import { Tokenizer } from './tokenizer.js';
import { TinyLm } from './tiny-lm.js';
import { Rng } from './rng.js';
import { maskedCrossEntropy } from './loss.js';

beforeAll(async () => {
  await initBackend('cpu', { quiet: true });
});

const ex = { id: 'x', question: 'Use 3 5 7 to make 22', steps: ['5+7=12', '12+3=15'], answer: '15' };

it('lays out prompt, reasoning and answer with the separator', () => {
  const tok = Tokenizer.build(exampleTexts([ex]));
  const e = encodeExample(tok, ex);
  expect(tok.decode([...e.prompt, ...e.reasoning, ...e.answer])).toBe(
    '<bos>Use 3 5 7 to make 22\n5+7=12\n12+3=15\n### 15<eos>',
  );
  expect(e.answer[0]).toBe(tok.sepId);
});

it('reference segments train the reasoning and the answer (CoT) or the answer alone (No-CoT), never the prompt', () => {
  const tok = Tokenizer.build(exampleTexts([ex]));
  const e = encodeExample(tok, ex);
  expect(referenceSegments(tok, ex, true)).toEqual([
    { ids: e.prompt, trained: false },
    { ids: e.reasoning, trained: true },
    { ids: e.answer, trained: true },
  ]);
  expect(referenceSegments(tok, ex, false)).toEqual([
    { ids: e.prompt, trained: false },
    { ids: e.answer, trained: true },
  ]);
});

it('packs right-padded teacher-forcing batches with loss masks', () => {
  const tok = Tokenizer.build(exampleTexts([ex]));
  const p = packSegments(
    [
      [
        { ids: [1, 5, 6], trained: false },
        { ids: [7, 2], trained: true },
      ],
      [
        { ids: [1, 5], trained: false },
        { ids: [2], trained: true },
      ],
    ],
    tok.padId,
  );
  expect(p.ids.arraySync()).toEqual([
    [1, 5, 6, 7],
    [1, 5, 0, 0],
  ]);
  expect(p.targets.arraySync()).toEqual([
    [5, 6, 7, 2],
    [5, 2, 0, 0],
  ]);
  expect(p.lossMask.arraySync()).toEqual([
    [0, 0, 1, 1],
    [0, 1, 0, 0],
  ]);
  expect(p.trainedTargets).toBe(3); // the 1s of lossMask
  expect(p.attentionMask.arraySync()).toEqual([
    [1, 1, 1, 1],
    [1, 1, 0, 0],
  ]);
  tf.dispose([p.ids, p.targets, p.lossMask, p.attentionMask]);
  expect(() => packSegments([[{ ids: [1, 2, 3, 4], trained: true }]], 0, 2)).toThrow(/exceeds the context length/);
});

it('within a context length, pads to one of 8 widths per doubling (at most the context), with the same masked loss', () => {
  expect([5, 9, 17, 39, 64, 65, 200, 450, 600].map((n) => paddedWidth(n, 640))).toEqual([
    5, 9, 18, 40, 64, 72, 208, 480, 640,
  ]);
  expect(paddedWidth(700, 640)).toBe(700); // past the context: never narrower than the row
  const rows = [40, 21].map((n) => [{ ids: Array.from({ length: n }, (_, i) => 1 + (i % 9)), trained: true }]);
  const width = (p: PackedBatch) => {
    tf.dispose([p.ids, p.targets, p.lossMask, p.attentionMask]);
    return p.ids.shape[1];
  };
  expect(width(packSegments(rows, 0))).toBe(39); // no context length: the longest row
  expect(width(packSegments(rows, 0, 100))).toBe(40);
  expect(width(packSegments(rows, 0, 39))).toBe(39); // rounded past the context: the context
  const lm = new TinyLm({ vocabSize: 10, contextLength: 100, layers: 1, heads: 2, width: 8 }, new Rng(0));
  const loss = (p: PackedBatch) => {
    const value = tf.tidy(() => maskedCrossEntropy(lm.forward(lm.embed(p.ids)).logits, p.targets, p.lossMask));
    width(p);
    return value.dataSync()[0];
  };
  expect(loss(packSegments(rows, 0, 100))).toBeCloseTo(loss(packSegments(rows, 0)), 6);
  lm.dispose();
});

it('weights the targets of a trained segment by its weight, and refuses a weight that is not ≥ 0', () => {
  const p = packSegments(
    [
      [
        { ids: [1, 5, 6], trained: true, weight: 0.25 },
        { ids: [7, 2], trained: true },
      ],
      [
        { ids: [1, 5], trained: false, weight: 3 }, // context: the weight does not apply
        { ids: [2], trained: true, weight: 2 },
      ],
    ],
    0,
  );
  // targets 5, 6 come from the first segment, 7, 2 from the second
  expect(p.lossMask.arraySync()).toEqual([
    [0.25, 0.25, 1, 1],
    [0, 2, 0, 0],
  ]);
  expect(p.trainedTargets).toBe(4.5);
  tf.dispose([p.ids, p.targets, p.lossMask, p.attentionMask]);
  for (const weight of [-1, Number.NaN, Number.POSITIVE_INFINITY])
    expect(() => packSegments([[{ ids: [1, 2], trained: true, weight }]], 0)).toThrow(
      /weight must be a finite number ≥ 0/,
    );
});

it('reads the answer after the last separator and counts reasoning tokens before the first', () => {
  const tok = Tokenizer.build(exampleTexts([ex]));
  const gen = [...tok.encode('5+7=12\n'), tok.sepId, ...tok.encode(' 15'), tok.eosId, ...tok.encode('7')];
  expect(answerFromIds(tok, gen)).toEqual({ answer: '15', reasoningTokens: 7, sawSeparator: true });
  expect(answerFromIds(tok, tok.encode('12')).sawSeparator).toBe(false);
});

describe('leftPadRows', () => {
  it("left-pads ids, masks the padding and counts positions from each row's first real token; leading slots come first in mask and positions", () => {
    expect(leftPadRows([[5, 6, 7], [8]], 0)).toEqual({
      ids: [5, 6, 7, 0, 0, 8],
      mask: [1, 1, 1, 0, 0, 1],
      positions: [0, 1, 2, 0, 0, 0],
      T: 3,
    });
    expect(leftPadRows([[5, 6], [8]], 0, 1)).toEqual({
      ids: [5, 6, 0, 8],
      mask: [1, 1, 1, 1, 0, 1],
      positions: [0, 0, 1, 0, 0, 0],
      T: 2,
    });
  });

  it('pads to a given width, and rejects one narrower than the longest row', () => {
    const out = leftPadRows([[5, 6], [8]], 0, 0, 4);
    expect(out).toEqual({
      ids: [0, 0, 5, 6, 0, 0, 0, 8],
      mask: [0, 0, 1, 1, 0, 0, 0, 1],
      positions: [0, 0, 0, 1, 0, 0, 0, 0],
      T: 4,
    });
    expect(() => leftPadRows([[5, 6], [8]], 0, 0, 1)).toThrow(
      /width must be an integer ≥ the longest row \(2\), got 1/,
    );
  });
});

describe('runTokenizer', () => {
  const train = [ex, { id: 'y', question: 'Use 2 4 to reach 6', steps: ['2+4=6'], answer: '6' }];

  it('builds from the training texts with the options, saves, and a second call reads the saved one', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'run-tok-')), 'tokenizer.json');
    const rare = await runTokenizer(file, train, { minCount: 2 });
    expect(rare.tokens).toEqual(Tokenizer.build(exampleTexts(train), { minCount: 2 }).tokens);
    expect(rare.encode(' to')).not.toContain(rare.unkId); // seen twice
    expect(rare.encode(' make')).toEqual([rare.unkId]); // seen once
    const every = Tokenizer.build(exampleTexts(train));
    expect(every.encode(' make')).not.toContain(every.unkId);
    // A resumed run keeps the vocabulary it started with, whatever is passed now.
    const again = await runTokenizer(file, [], {});
    expect(again.tokens).toEqual(rare.tokens);
  });
});
