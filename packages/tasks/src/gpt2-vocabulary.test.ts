/**
 * Every task's text, tokenised with GPT-2's real vocabulary through core's PretrainedTokenizer
 * (Hugging Face's tokenizer library), equals OpenAI's own GPT-2 encoding (js-tiktoken's
 * r50k_base, an independent implementation). The vocabulary is the one js-tiktoken ships: its
 * byte-sequence ranks become GPT-2's vocab.json + merges.txt (token ids are the ranks; the merge
 * that makes a token is the last step of byte-pair encoding its bytes with lower-ranked tokens
 * only), written to a temporary folder. No download.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { exampleTexts, PretrainedTokenizer, type Example } from '@telepath/core';
import { Tiktoken } from 'js-tiktoken/lite';
import r50k from 'js-tiktoken/ranks/r50k_base';
import { afterAll, expect, it } from 'vitest';
import { generateCountdown } from './countdown/generate.js';
import { loadGsm8k } from './gsm8k/load.js';
import { loadProsqa } from './prosqa/load.js';

const scratch = mkdtempSync(path.join(tmpdir(), 'telepath-gpt2-vocab-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** GPT-2's reversible byte → printable character table (Radford et al. 2019, §2.2's byte-level BPE). */
function byteChars(): string[] {
  const printable = (b: number) => (b >= 0x21 && b <= 0x7e) || (b >= 0xa1 && b <= 0xac) || (b >= 0xae && b <= 0xff);
  const out: string[] = [];
  let next = 256;
  for (let b = 0; b < 256; b++) out[b] = String.fromCodePoint(printable(b) ? b : next++);
  return out;
}

function writeGpt2Vocabulary(folder: string): void {
  const chars = byteChars();
  const rank = new Map<string, number>(); // latin1 string of the bytes → rank
  const byRank: string[] = [];
  for (const line of r50k.bpe_ranks.split('\n').filter(Boolean)) {
    const [, offset, ...tokens] = line.split(' ');
    tokens.forEach((t, i) => {
      const bytes = Buffer.from(t, 'base64').toString('latin1');
      rank.set(bytes, Number(offset) + i);
      byRank[Number(offset) + i] = bytes;
    });
  }
  const toChars = (s: string) => [...s].map((c) => chars[c.charCodeAt(0)]).join('');
  const merges: string[] = [];
  byRank.forEach((bytes, r) => {
    if (bytes.length < 2) return;
    let parts = [...bytes];
    for (;;) {
      let best = -1;
      for (let i = 0; i + 1 < parts.length; i++) {
        const m = rank.get(parts[i] + parts[i + 1]);
        if (m !== undefined && m < r && (best < 0 || m < rank.get(parts[best] + parts[best + 1])!)) best = i;
      }
      if (best < 0) break;
      parts = [...parts.slice(0, best), parts[best] + parts[best + 1], ...parts.slice(best + 2)];
    }
    if (parts.length !== 2) throw new Error(`r50k token ${r} does not split into one merge (${parts.length} parts)`);
    merges.push(`${toChars(parts[0])} ${toChars(parts[1])}`);
  });
  const vocab: Record<string, number> = {};
  byRank.forEach((bytes, r) => (vocab[toChars(bytes)] = r));
  for (const [token, id] of Object.entries(r50k.special_tokens)) vocab[token] = id;
  writeFileSync(path.join(folder, 'vocab.json'), JSON.stringify(vocab));
  writeFileSync(path.join(folder, 'merges.txt'), ['#version: 0.2', ...merges].join('\n') + '\n');
}

it("every task's text tokenises with GPT-2's vocabulary exactly as OpenAI's encoder does", { timeout: 60_000 }, async () => {
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
});
