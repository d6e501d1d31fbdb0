import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runTokenizer } from '@telepath/core';
import { describe, expect, it } from 'vitest';
import { loadTaskData, parseData, type Gsm8kData } from './data.js';

describe('GSM8K data.vocabMinCount', () => {
  it('defaults to 1 (every word) and rejects anything but an integer ≥ 1, naming the key', () => {
    expect((parseData('gsm8k', {}, 'g.json') as Gsm8kData).vocabMinCount).toBe(1);
    expect(() => parseData('gsm8k', { vocabMinCount: 0 }, 'g.json')).toThrow(/g.json data.vocabMinCount: expected an integer ≥ 1.*got 0/);
    expect(() => parseData('gsm8k', { vocabMinCount: 2.5 }, 'g.json')).toThrow(/data.vocabMinCount/);
  });

  it("reaches the run's tokenizer: rarer words become <unk>, so the vocabulary shrinks", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lab-vocab-'));
    const sizes: number[] = [];
    for (const m of [1, 3]) {
      const data = await loadTaskData('gsm8k', parseData('gsm8k', { trainLimit: 300, testLimit: 1, vocabMinCount: m }, 'g.json'));
      expect(data.vocabulary).toEqual({ minCount: m });
      sizes.push((await runTokenizer(join(dir, `tok-${m}.json`), data.train, data.vocabulary)).size);
    }
    expect(sizes[1]).toBeLessThan(sizes[0] / 2);
  });

  it('Countdown and ProsQA keep every piece', async () => {
    expect((await loadTaskData('countdown', parseData('countdown', { trainCount: 5, testCount: 2 }, 'c.json'))).vocabulary).toEqual({});
    expect((await loadTaskData('prosqa', parseData('prosqa', { trainCount: 5, testLimit: 2 }, 'p.json'))).vocabulary).toEqual({});
    expect(() => parseData('prosqa', { vocabMinCount: 3 }, 'p.json')).toThrow(/p.json data: unknown config key "vocabMinCount"/);
  });
});
