import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Rng, runTokenizer } from '@telepath/core';
import { describe, expect, it } from 'vitest';
import { loadTaskData, parseData, type Gsm8kData } from './data.js';

describe('GSM8K data.vocabMinCount', () => {
  it('defaults to 1 (every word) and rejects anything but an integer ≥ 1, naming the key', () => {
    expect((parseData('gsm8k', {}, 'g.json') as Gsm8kData).vocabMinCount).toBe(1);
    expect(() => parseData('gsm8k', { vocabMinCount: 0 }, 'g.json')).toThrow(
      /g.json data.vocabMinCount: expected an integer ≥ 1.*got 0/,
    );
    expect(() => parseData('gsm8k', { vocabMinCount: 2.5 }, 'g.json')).toThrow(/data.vocabMinCount/);
  });

  it("reaches the run's tokenizer: rarer words become <unk>, so the vocabulary shrinks", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lab-vocab-'));
    const sizes: number[] = [];
    for (const m of [1, 3]) {
      const data = await loadTaskData(
        'gsm8k',
        parseData('gsm8k', { trainLimit: 300, testLimit: 1, vocabMinCount: m }, 'g.json'),
      );
      expect(data.vocabulary).toEqual({ minCount: m });
      sizes.push((await runTokenizer(join(dir, `tok-${m}.json`), data.train, data.vocabulary)).size);
    }
    expect(sizes[1]).toBeLessThan(sizes[0] / 2);
  });

  it('Countdown and ProsQA keep every piece', async () => {
    expect(
      (await loadTaskData('countdown', parseData('countdown', { trainCount: 5, testCount: 2 }, 'c.json'))).vocabulary,
    ).toEqual({});
    expect(
      (await loadTaskData('prosqa', parseData('prosqa', { trainCount: 5, testLimit: 2 }, 'p.json'))).vocabulary,
    ).toEqual({});
    expect(() => parseData('prosqa', { vocabMinCount: 3 }, 'p.json')).toThrow(
      /p.json data: unknown config key "vocabMinCount"/,
    );
  });
});

describe('ProsQA rendering, reasoning and generator', () => {
  it('rejects unknown choices, a frontier or expansion trace in English and a span lookup without its span, naming the key', () => {
    expect(() => parseData('prosqa', { rendering: 'latin' }, 'p.json')).toThrow(
      'p.json data.rendering: expected one of english, symbolic, grouped, headed, got "latin"',
    );
    expect(() => parseData('prosqa', { generator: 'other' }, 'p.json')).toThrow(
      /p.json data.generator: expected one of coconut, balanced/,
    );
    expect(() => parseData('prosqa', { reasoning: 'frontier' }, 'p.json')).toThrow(
      /data.reasoning: the frontier trace is written in the symbolic renderings only/,
    );
    expect(() => parseData('prosqa', { reasoning: 'expansion' }, 'p.json')).toThrow(
      /data.reasoning: the expansion trace is written in the symbolic renderings only/,
    );
    expect(() => parseData('prosqa', { reasoning: 'lookup-span', rendering: 'symbolic' }, 'p.json')).toThrow(
      /p.json data.reasoning: lookup-span copies the grouped question's span " u: c1 c2." \(set data.rendering to "grouped"\)/,
    );
    expect(() => parseData('prosqa', { reasoning: 'lookup-span', rendering: 'headed' }, 'p.json')).toThrow(
      /lookup-span copies the grouped question's span/,
    );
    expect(() => parseData('prosqa', { reasoning: 'echo', rendering: 'symbolic' }, 'p.json')).toThrow(
      /p.json data.reasoning: echo copies the question's groups \(set data.rendering to "grouped" or "headed"\)/,
    );
    expect(() => parseData('prosqa', { reasoning: 'echo', rendering: 'headed' }, 'p.json')).not.toThrow();
    expect(() => parseData('prosqa', { reasoning: 'echo-line', rendering: 'symbolic' }, 'p.json')).toThrow(
      /p.json data.reasoning: echo-line copies the question's groups \(set data.rendering to "grouped" or "headed"\)/,
    );
    expect(() => parseData('prosqa', { reasoning: 'echo-line', rendering: 'headed' }, 'p.json')).not.toThrow();
  });

  it('renders train and test symbolically, with one tokenizer for every written reasoning', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lab-prosqa-'));
    const load = (reasoning: string) =>
      loadTaskData(
        'prosqa',
        parseData(
          'prosqa',
          { trainCount: 40, testLimit: 3, rendering: 'symbolic', generator: 'balanced', reasoning },
          'p.json',
        ),
      );
    const [path, frontier, expansion] = [await load('path'), await load('frontier'), await load('expansion')];
    expect(path.test.map((e) => e.id)).toEqual(['prosqa/test/0', 'prosqa/test/1', 'prosqa/test/2']);
    expect(path.test[0].question.endsWith(' ? Sally hilpus sterpus')).toBe(true);
    expect(path.train[0].steps[0].startsWith('> ')).toBe(true);
    expect(frontier.train[0].steps[0].startsWith(': ')).toBe(true);
    expect(frontier.train[0].question).toBe(path.train[0].question);
    expect(expansion.train[0].steps[0].startsWith('+ ')).toBe(true);
    expect(expansion.train[0].question).toBe(path.train[0].question);
    const lookup = await load('lookup'); // the probe: the expansion trace's first line alone
    expect(lookup.train.map((e) => e.steps)).toEqual(expansion.train.map((e) => e.steps.slice(0, 1)));
    expect(Object.keys(expansion.hashes)).toEqual([
      'prosqa-balanced-symbolic-expansion/train',
      'prosqa-symbolic-expansion/test',
    ]);
    expect(Object.keys(frontier.hashes)).toEqual([
      'prosqa-balanced-symbolic-frontier/train',
      'prosqa-symbolic-frontier/test',
    ]);
    const tokens = await Promise.all(
      [path, frontier, expansion].map(
        async (d, i) => (await runTokenizer(join(dir, `t${i}.json`), d.vocabularyFrom ?? d.train, d.vocabulary)).tokens,
      ),
    );
    expect(tokens[1]).toEqual(tokens[0]);
    expect(tokens[2]).toEqual(tokens[0]);
    expect(tokens[0]).toEqual(expect.arrayContaining(['>', ':', '+'])); // every form's line mark
    // The grouped rendering: the same graphs and traces, each node's edges together in the question.
    const grouped = await loadTaskData(
      'prosqa',
      parseData(
        'prosqa',
        { trainCount: 40, testLimit: 3, rendering: 'grouped', generator: 'balanced', reasoning: 'expansion' },
        'p.json',
      ),
    );
    expect(grouped.train.map((e) => e.steps)).toEqual(expansion.train.map((e) => e.steps));
    expect(grouped.test[0].question).toMatch(/^ [A-Za-z]+: [a-z]+/);
    expect(grouped.test[0].question.endsWith(' ? Sally hilpus sterpus')).toBe(true);
    expect(Object.keys(grouped.hashes)).toEqual([
      'prosqa-balanced-grouped-expansion/train',
      'prosqa-grouped-expansion/test',
    ]);
  });

  it('draws training batches along the depth curriculum (2 hops first, all depths from curriculumSteps on), reproducibly', async () => {
    expect(() => parseData('prosqa', { curriculumSteps: 100 }, 'p.json')).toThrow(
      /p.json data.curriculumSteps: .*set data.generator to "balanced"/,
    );
    expect(() => parseData('prosqa', { curriculumSteps: -1, generator: 'balanced' }, 'p.json')).toThrow(
      /data.curriculumSteps: expected an integer ≥ 0/,
    );
    const d = await loadTaskData(
      'prosqa',
      parseData(
        'prosqa',
        { trainCount: 100, testLimit: 2, rendering: 'symbolic', generator: 'balanced', curriculumSteps: 500 },
        'p.json',
      ),
    );
    const hops = (step: number, seed: number) => d.trainBatch!(new Rng(seed), step, 64).map((e) => e.steps.length);
    expect(new Set(hops(0, 1))).toEqual(new Set([2]));
    expect(Math.max(...hops(100, 1))).toBe(3);
    expect(Math.max(...hops(500, 1))).toBe(6);
    expect(hops(300, 7)).toEqual(hops(300, 7));
    const plain = await loadTaskData(
      'prosqa',
      parseData('prosqa', { trainCount: 100, testLimit: 2, rendering: 'symbolic', generator: 'balanced' }, 'p.json'),
    );
    expect(plain.trainBatch).toBeUndefined();
  });
});
