import { beforeAll, describe, expect, it } from 'vitest';
import type { Example } from '../example.js';
import { curriculumPrefix, curriculumStage, generateBalancedProsqa } from './balanced.js';
import { generateProsqa } from './generate.js';
import { parentCounts } from './graph.js';
import { prosqaViolations } from './invariants.js';
import { loadProsqa, prosqaGraph } from './load.js';

/** How often the question text names a word. */
const mentions = (question: string, word: string) => question.split(/[ .?]+/).filter((w) => w === word).length;

/** Rates that a counting or position shortcut would use, measured from the question text and graph. */
function shortcutRates(examples: Example[]) {
  let tLess = 0,
    nLess = 0,
    tMentions = 0,
    nMentions = 0,
    tIn = 0,
    nIn = 0,
    tFirst = 0;
  for (const ex of examples) {
    const g = prosqaGraph(ex);
    const [t, n] = [g.symbols[g.target], g.symbols[g.negTarget]];
    const [mt, mn] = [mentions(ex.question, t), mentions(ex.question, n)];
    const indeg = parentCounts(g.symbols.length, g.edges);
    tMentions += mt;
    nMentions += mn;
    tIn += indeg[g.target];
    nIn += indeg[g.negTarget];
    if (mt < mn) tLess++;
    if (mn < mt) nLess++;
    if (/ a (\w+) or/.exec(ex.question)![1] === t) tFirst++;
  }
  const c = examples.length;
  return {
    targetLessPct: (100 * tLess) / c,
    negLessPct: (100 * nLess) / c,
    mentionGap: (tMentions - nMentions) / c,
    inDegreeGap: (tIn - nIn) / c,
    targetFirstPct: (100 * tFirst) / c,
  };
}

let real: Example[];
beforeAll(async () => {
  real = (await loadProsqa('test')).examples;
});

describe('balanced ProsQA generator', () => {
  it(
    'balances target and distractor for mentions, in-degree and position over 10,000 graphs',
    { timeout: 30_000 },
    () => {
      const gen = generateBalancedProsqa({ count: 10_000, seed: 0 });
      const r = shortcutRates(gen);
      // Stated tolerances: mean mentions and mean in-degree differ by ≤ 0.02 per question; the
      // less-mentioned option is the target as often as the distractor (±1 pp); target first 50 ± 2 pp.
      expect(Math.abs(r.mentionGap)).toBeLessThanOrEqual(0.02);
      expect(Math.abs(r.inDegreeGap)).toBeLessThanOrEqual(0.02);
      expect(Math.abs(r.targetLessPct - r.negLessPct)).toBeLessThanOrEqual(1);
      expect(Math.abs(r.targetFirstPct - 50)).toBeLessThanOrEqual(2);
      const depths = new Map<number, number>();
      for (const e of gen) depths.set(e.steps.length, (depths.get(e.steps.length) ?? 0) + 1);
      expect([...depths.entries()].sort((a, b) => a[0] - b[0])).toEqual([
        [2, 2000],
        [3, 2000],
        [4, 2000],
        [5, 2000],
        [6, 2000],
      ]);
    },
  );

  it('removes a shortcut the real files and the unbalanced generator carry (the measurement can fail)', () => {
    const realRates = shortcutRates(real);
    expect(realRates.targetLessPct - realRates.negLessPct).toBeGreaterThan(20); // the test set's counting bias
    const plain = shortcutRates(generateProsqa({ count: 2000, seed: 0 }));
    expect(plain.targetLessPct - plain.negLessPct).toBeGreaterThan(10);
  });

  it('satisfies every invariant of the real files and is deterministic per seed', () => {
    const gen = generateBalancedProsqa({ count: 200, seed: 5 });
    expect(gen.flatMap((e) => prosqaViolations(e).map((v) => `${e.id}: ${v}`))).toEqual([]);
    expect(generateBalancedProsqa({ count: 200, seed: 5 })).toEqual(gen);
    expect(gen[0].id).toBe('prosqa-balanced/train/0');
  });

  it('orders a curriculum from 2 hops to 6: stage s holds depths 2..2+s', () => {
    const gen = generateBalancedProsqa({ count: 500, seed: 3, curriculum: true });
    gen.forEach((e, i) => expect(e.steps.length).toBeLessThanOrEqual(2 + curriculumStage(i, 500)));
    expect(gen.slice(0, 100).every((e) => e.steps.length === 2)).toBe(true);
    expect(Math.max(...gen.slice(400).map((e) => e.steps.length))).toBe(6);
  });

  it('opens the ordered set stage by stage as training steps pass: depth 2 only at first, all depths from curriculumSteps on', () => {
    const gen = generateBalancedProsqa({ count: 503, seed: 3, curriculum: true });
    const deepestAt = (step: number) =>
      Math.max(...gen.slice(0, curriculumPrefix(step, 1000, gen.length)).map((e) => e.steps.length));
    expect(deepestAt(0)).toBe(2);
    expect(deepestAt(199)).toBe(2);
    expect(deepestAt(200)).toBe(3);
    expect(deepestAt(799)).toBe(5);
    expect(curriculumPrefix(800, 1000, gen.length)).toBe(gen.length);
    expect(curriculumPrefix(5000, 1000, gen.length)).toBe(gen.length);
    expect(curriculumPrefix(0, 0, gen.length)).toBe(gen.length);
    // Every prefix ends on a stage boundary: the next example belongs to the next stage.
    for (const step of [0, 200, 400, 600]) {
      const end = curriculumPrefix(step, 1000, gen.length);
      expect(curriculumStage(end - 1, gen.length)).toBe(step / 200);
      expect(curriculumStage(end, gen.length)).toBe(step / 200 + 1);
    }
  });
});
