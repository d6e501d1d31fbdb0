/**
 * Every task's text, tokenised with GPT-2's real vocabulary through core's PretrainedTokenizer
 * (Hugging Face's tokenizer library), equals OpenAI's own GPT-2 encoding (js-tiktoken's
 * r50k_base, an independent implementation). The vocabulary is the one js-tiktoken ships: its
 * byte-sequence ranks become GPT-2's vocab.json + merges.txt (core's bpeFilesFromRanks), written
 * to a temporary folder. No download.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { bpeFilesFromRanks, exampleTexts, parseTiktokenRanks, PretrainedTokenizer, type Example } from '@telepath/core';
import { Tiktoken } from 'js-tiktoken/lite';
import r50k from 'js-tiktoken/ranks/r50k_base';
import { afterAll, expect, it } from 'vitest';
import { generateCountdown } from './countdown/generate.js';
import { loadGsm8k } from './gsm8k/load.js';
import { loadProsqa } from './prosqa/load.js';

const scratch = mkdtempSync(path.join(tmpdir(), 'telepath-gpt2-vocab-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function writeGpt2Vocabulary(folder: string): void {
  const { vocab, merges } = bpeFilesFromRanks(parseTiktokenRanks(r50k.bpe_ranks), r50k.special_tokens);
  writeFileSync(path.join(folder, 'vocab.json'), JSON.stringify(vocab));
  writeFileSync(path.join(folder, 'merges.txt'), ['#version: 0.2', ...merges].join('\n') + '\n');
}

it(
  "every task's text tokenises with GPT-2's vocabulary exactly as OpenAI's encoder does",
  { timeout: 60_000 },
  async () => {
    writeGpt2Vocabulary(scratch);
    const ours = await PretrainedTokenizer.load(scratch);
    const openai = new Tiktoken(r50k);
    expect(ours.size).toBe(50257);
    expect(ours.encode('Hello world')).toEqual([15496, 995]); // GPT-2's published ids
    const tasks: [string, Example[]][] = [
      ['gsm8k test', (await loadGsm8k('test')).examples],
      ['prosqa test', (await loadProsqa('test')).examples.slice(0, 200)],
      ['countdown n=4', generateCountdown({ n: 4, count: 200, seed: 0, split: 'train' })],
    ];
    for (const [name, examples] of tasks) {
      const texts = exampleTexts(examples);
      expect(texts.length, name).toBeGreaterThan(0);
      let tokens = 0;
      for (const text of texts) {
        const ids = ours.encode(text);
        expect(ids, `${name}: ${JSON.stringify(text)}`).toEqual(openai.encode(text));
        expect(ours.decode(ids)).toBe(text);
        tokens += ids.length;
      }
      expect(tokens, name).toBeGreaterThan(texts.length);
    }
  },
);
