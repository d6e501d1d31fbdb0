import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { encodeExample, exampleTexts, Tokenizer } from '@telepath/core';
import { describe, expect, it } from 'vitest';
import { generateCountdown } from './countdown/generate.js';
import { loadGsm8k } from './gsm8k/load.js';
import { gsm8kTask } from './gsm8k/task.js';
import { generateProsqa } from './prosqa/generate.js';
import { loadProsqa } from './prosqa/load.js';
import { prosqaTask } from './prosqa/task.js';
import { countdownTask } from './countdown/task.js';
import { cotSequence, latentSequence, noCotSequence, sequenceText, toSequence } from './sequences.js';
import { buildAndSaveVocabulary, buildVocabulary } from './vocabulary.js';

const ex = { id: 'gsm8k/train/0', question: 'Q?', steps: ['48/2=24', '48+24=72'], answer: '72' };

describe('sequence formats', () => {
  it('No-CoT, CoT and latent', () => {
    expect(noCotSequence(ex)).toEqual({ prompt: 'Q?\n', completion: '### 72' });
    expect(cotSequence(ex)).toEqual({ prompt: 'Q?\n', completion: '48/2=24\n48+24=72\n### 72' });
    expect(latentSequence(ex)).toEqual({ prompt: 'Q?\n<bot><latent><latent><eot>', completion: '### 72' });
    expect(latentSequence(ex, { stepsReplaced: 1, latents: 3 })).toEqual({
      prompt: 'Q?\n<bot><latent><latent><latent><eot>',
      completion: '48+24=72\n### 72',
    });
    expect(cotSequence({ ...ex, steps: [] }).completion).toBe('### 72');
    // The same text as core's id layout (without <bos>/<eos>).
    const tok = Tokenizer.build(exampleTexts([ex]));
    const enc = encodeExample(tok, ex);
    expect(tok.decode([...enc.prompt, ...enc.reasoning, ...enc.answer], { skipSpecial: true })).toBe(
      sequenceText(cotSequence(ex)),
    );
    expect(() => toSequence(ex, 'cott' as never)).toThrow(/Expected one of: no-cot, cot, latent/);
    expect(() => cotSequence({ ...ex, steps: ['a\nb'] })).toThrow(/gsm8k\/train\/0: a step contains a newline/);
  });

  it('a model output equal to the completion scores correct on every task', async () => {
    const cases = [
      [gsm8kTask, (await loadGsm8k('valid')).examples.slice(0, 20)],
      [prosqaTask, (await loadProsqa('valid')).examples.slice(0, 20)],
      [countdownTask, generateCountdown({ n: 4, count: 20, seed: 0, split: 'train' })],
    ] as const;
    for (const [task, examples] of cases) {
      for (const e of examples) {
        for (const mode of ['no-cot', 'cot', 'latent'] as const)
          expect(task.isCorrect(e, toSequence(e, mode).completion)).toBe(true);
      }
    }
  });
});

describe('vocabulary', () => {
  it('is built from the training split, round-trips its text, and is saved', async () => {
    const train = generateProsqa({ count: 200, seed: 0 });
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'telepath-vocab-'));
    const file = path.join(dir, 'prosqa.vocab.json');
    const { tokenizer, report } = await buildAndSaveVocabulary(train, file, {
      valid: (await loadProsqa('valid')).examples,
    });
    const loaded = await Tokenizer.load(file);
    expect(loaded.tokens).toEqual(tokenizer.tokens);
    for (const e of train.slice(0, 20)) {
      for (const s of [cotSequence(e), latentSequence(e, { latents: 2 })]) {
        const text = sequenceText(s);
        expect(loaded.decode(loaded.encode(text))).toBe(text);
      }
    }
    expect(report.unknown.valid.unknown).toBe(0);
    expect(report.size).toBeLessThan(120);
  });

  it('GSM8K train covers every digit and the separator', async () => {
    const tok = buildVocabulary((await loadGsm8k('train')).examples.slice(0, 500));
    for (const d of '0123456789') expect(tok.encode(d)).not.toContain(tok.unkId);
    expect(tok.encode('### 7')[0]).toBe(tok.sepId);
  });
});
