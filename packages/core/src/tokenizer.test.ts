import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SPECIAL_TOKENS, Tokenizer } from './tokenizer.js';

const TRAIN = [
  'Natalia sold 48 clips in April, and half as many in May.',
  '<<48/2=24>> 48/2=24 ### 72',
  'How many clips did she sell?',
];

describe('Tokenizer', () => {
  it('round-trips text whose pieces were seen, with specials kept whole', () => {
    const t = Tokenizer.build(TRAIN);
    const text = 'Natalia sold 24 clips in May.<bot><latent><eot> 48/2=24 ### 72';
    const ids = t.encode(text, { bos: true, eos: true });
    expect(ids[0]).toBe(t.bosId);
    expect(ids[ids.length - 1]).toBe(t.eosId);
    expect(t.decode(ids)).toBe(`${SPECIAL_TOKENS.bos}${text}${SPECIAL_TOKENS.eos}`);
    expect(t.decode(ids, { skipSpecial: true })).toBe(text);
    expect(ids).not.toContain(t.unkId);
  });

  it('gives every digit its own token and fixed ids to the specials', () => {
    const t = Tokenizer.build(TRAIN);
    expect(t.pieces('1234')).toEqual(['1', '2', '3', '4']);
    expect(t.pieces(' 12 apples')).toEqual([' ', '1', '2', ' apples']);
    expect(t.encode('907')).not.toContain(t.unkId);
    expect([t.padId, t.bosId, t.eosId, t.unkId]).toEqual([0, 1, 2, 3]);
    expect(t.pieces('a###b')).toEqual(['a', '###', 'b']);
  });

  it('maps unseen pieces to <unk> and counts them', () => {
    const t = Tokenizer.build(TRAIN);
    expect(t.encode(' zebra')).toEqual([t.unkId]);
    expect(t.countUnknown([' zebra sold'])).toEqual({ pieces: 2, unknown: 1 });
  });

  it('respects minCount and maxSize', () => {
    const t = Tokenizer.build(['a a a b'], { minCount: 2 });
    expect(t.tokens).toContain(' a');
    expect(t.tokens).not.toContain(' b');
    expect(Tokenizer.build(TRAIN, { maxSize: 22 }).size).toBe(22);
    expect(() => Tokenizer.build(TRAIN, { maxSize: 12 })).toThrow(/below the 19 fixed tokens/);
  });

  it('saves and loads as JSON, and rejects bad files with the path', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tok-'));
    const t = Tokenizer.build(TRAIN, { extraSpecials: ['<sp>'] });
    await t.save(join(dir, 'tok.json'));
    const u = await Tokenizer.load(join(dir, 'tok.json'));
    expect(u.tokens).toEqual(t.tokens);
    expect(u.pieces('x<sp>y')).toContain('<sp>');
    writeFileSync(join(dir, 'bad.json'), '{"format": "other"}');
    await expect(Tokenizer.load(join(dir, 'bad.json'))).rejects.toThrow(/bad\.json: not a Telepath tokenizer/);
    writeFileSync(join(dir, 'broken.json'), '{');
    await expect(Tokenizer.load(join(dir, 'broken.json'))).rejects.toThrow(/broken\.json is not valid JSON/);
    await expect(Tokenizer.load(join(dir, 'missing.json'))).rejects.toThrow(/cannot read .*missing\.json/);
  });

  it('rejects ids outside the vocabulary when decoding', () => {
    const t = Tokenizer.build(TRAIN);
    expect(() => t.decode([t.size])).toThrow(/outside/);
  });
});
