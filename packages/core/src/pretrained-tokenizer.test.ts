import { mkdirSync, mkdtempSync, rmSync, copyFileSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, expect, it } from 'vitest';
import { PretrainedTokenizer } from './pretrained-tokenizer.js';
import { encodeExample, answerFromIds } from './sequence.js';

const FIXTURES = fileURLToPath(new URL('./__fixtures__/', import.meta.url));
const TINY = path.join(FIXTURES, 'tiny-gpt2');
/** The fixture script's own byte-level BPE encodings of a few texts. */
const reference = JSON.parse(readFileSync(path.join(TINY, 'reference.json'), 'utf8')) as {
  texts: { text: string; ids: number[] }[];
};
const scratch = mkdtempSync(path.join(tmpdir(), 'telepath-tokenizer-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

it('tokenizer.json and vocab.json + merges.txt both encode as the fixture script did, and decode exactly', async () => {
  const fromMerges = path.join(scratch, 'merges-only');
  mkdirSync(fromMerges);
  for (const f of ['vocab.json', 'merges.txt']) copyFileSync(path.join(TINY, f), path.join(fromMerges, f));
  for (const folder of [TINY, fromMerges]) {
    const tok = await PretrainedTokenizer.load(folder);
    expect(tok.size).toBe(353);
    for (const { text, ids } of reference.texts) {
      expect(tok.encode(text)).toEqual(ids);
      expect(tok.decode(ids)).toBe(text);
    }
    // Without Telepath's specials, "###" is plain text and the markers are not in the vocabulary.
    expect(tok.encode('###').length).toBeGreaterThan(0);
    expect(tok.encode('###')).not.toContain(353);
    expect(() => tok.id('latent')).toThrow(/not in this checkpoint's vocabulary/);
  }
});

it("with Telepath's special tokens added, an example encodes to the shared layout and its answer decodes back", async () => {
  const tok = await PretrainedTokenizer.load(TINY, { addSpecialTokens: true });
  expect(tok.size).toBe(361);
  expect([
    tok.padId,
    tok.bosId,
    tok.eosId,
    tok.unkId,
    tok.id('bot'),
    tok.id('eot'),
    tok.id('latent'),
    tok.sepId,
  ]).toEqual([353, 354, 355, 356, 357, 358, 359, 360]);
  expect(tok.encode('a<bot><latent><latent><eot>### 7')).toEqual([64, 357, 359, 359, 358, 360, ...tok.encode(' 7')]);
  const ex = { id: 'x', question: 'Janet has 3 apples.', steps: ['<<3+4=7>>'], answer: '7' };
  const enc = encodeExample(tok, ex);
  expect(enc.prompt).toEqual([354, ...reference.texts[0].ids, ...tok.encode('\n')]);
  const out = answerFromIds(tok, [...enc.reasoning, ...enc.answer]);
  expect(out).toMatchObject({ answer: '7', sawSeparator: true });
  expect(tok.decode([354, 64, 355], { skipSpecial: true })).toBe('a');
  expect(tok.decode([354], { skipSpecial: true })).toBe('');
  expect(tok.countUnknown(['any text at all ☃'])).toMatchObject({ unknown: 0 });
  expect(() => JSON.stringify(tok)).toThrow(/save\(folder\)/);
});
