import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { bpeFilesFromRanks, byteLevelChars, parseTiktokenRanks } from './bpe-ranks.js';

const TINY = fileURLToPath(new URL('./__fixtures__/tiny-gpt2/', import.meta.url));

it("rebuilds the fixture's vocab.json and merges.txt from its rank table", () => {
  const vocab = JSON.parse(readFileSync(`${TINY}vocab.json`, 'utf8')) as Record<string, number>;
  const merges = readFileSync(`${TINY}merges.txt`, 'utf8').trim().split('\n').slice(1);
  const byteOf = new Map(byteLevelChars().map((c, b) => [c, b]));
  // The rank table tiktoken would ship: each token's bytes (latin1) → its id.
  const ranks = new Map(
    Object.entries(vocab)
      .filter(([t]) => t !== '<|endoftext|>')
      .map(([t, id]) => [String.fromCharCode(...[...t].map((c) => byteOf.get(c)!)), id]),
  );
  const rebuilt = bpeFilesFromRanks(ranks, { '<|endoftext|>': vocab['<|endoftext|>'] });
  expect(rebuilt.merges).toEqual(merges);
  expect(rebuilt.vocab).toEqual(vocab);
});

it('parses tiktoken rank lines and refuses a token that is not one merge', () => {
  const ranks = parseTiktokenRanks(
    `x 0 ${Buffer.from('a').toString('base64')} ${Buffer.from('b').toString('base64')}\nx 2 ${Buffer.from('ab').toString('base64')}\n`,
  );
  expect([...ranks]).toEqual([
    ['a', 0],
    ['b', 1],
    ['ab', 2],
  ]);
  expect(bpeFilesFromRanks(ranks).merges).toEqual(['a b']);
  expect(() =>
    bpeFilesFromRanks(
      new Map([
        ['a', 0],
        ['b', 1],
        ['c', 2],
        ['abc', 3],
      ]),
    ),
  ).toThrow(/rank 3 is not one merge/);
});
