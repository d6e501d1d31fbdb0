import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { Example } from './example.js';
import { chainClass, diagnoseChain, expressionValue } from './diagnostics.js';
import { countdownTask } from './countdown/task.js';
import { gsm8kTask } from './gsm8k/task.js';
import { prosqaTask } from './prosqa/task.js';
import { handMadeProsqa } from './testing.js';

const cd: Example = {
  id: 'cd',
  question: 'Make 42 from 10 4 2.',
  steps: ['10*4=40', '40+2=42'],
  answer: '10*4+2',
  meta: { nums: [10, 4, 2], target: 42, rules: 'sos' },
};

describe('chain diagnostics', () => {
  it('classes hand-made Countdown chains: sound, syntax, wrong arithmetic, unavailable numbers, misses the target, rule violation', () => {
    const cases: [string, string][] = [
      ['10*4=40\n40+2=42', 'sound'],
      ['10 times 4 is 40', 'syntax'],
      ['10*4=41\n41+2=43', 'wrong-arithmetic'],
      ['10*5=50\n50-2=48', 'unavailable-numbers'],
      ['10+4=14\n14+2=16', 'misses-target'],
      ['10*4=40', 'misses-target'],
      ['4-10=-6\n-6+2=-4', 'rule-violation'],
    ];
    for (const [chain, want] of cases)
      expect(diagnoseChain(countdownTask, cd, chain, '### 10*4+2').chain, chain).toBe(want);
  });
  it('says whether the answer is what the chain ends at', () => {
    expect(diagnoseChain(countdownTask, cd, '10*4=40\n40+2=42', '### 10*4+2').agrees).toBe(true);
    expect(diagnoseChain(countdownTask, cd, '10+4=14\n14+2=16', '### 10*4+2').agrees).toBe(false);
    expect(diagnoseChain(countdownTask, cd, '10+4=14\n14+2=16', '### 10+4+2').agrees).toBe(true); // wrong, but consistent
    expect(diagnoseChain(countdownTask, cd, '10*4=40', '### 10*(').agrees).toBe(false);
    // Reversed digits (least significant first): 62-(29-11)=44 written as 26-(92-11); the state after each step in brackets.
    const rev: Example = {
      ...cd,
      meta: { ...(cd.meta as object), nums: [29, 11, 62], target: 44, numberFormat: 'reversed' },
    };
    expect(diagnoseChain(countdownTask, rev, '92-11=81 [81 26]\n26-81=44 [44]', '### 26-(92-11)').agrees).toBe(true);
    expect(diagnoseChain(countdownTask, rev, '92-11=81 [81 26]\n26-81=44 [44]', '### 26-92-11').agrees).toBe(false);
    expect(diagnoseChain(countdownTask, cd, null, '### 10*4+2')).toEqual({ chain: null, agrees: null });
    expect(diagnoseChain(countdownTask, cd, '', '### 10*4+2')).toEqual({ chain: 'syntax', agrees: false }); // a CoT model that wrote no steps
    const g: Example = { id: 'g', question: 'q', steps: ['3+4=7'], answer: '7' };
    expect(diagnoseChain(gsm8kTask, g, '<<3+4=7>>', '### 7')).toEqual({ chain: null, agrees: true });
    expect(diagnoseChain(gsm8kTask, g, '<<3+4=7>>', '### 8').agrees).toBe(false);
  });
  it('ProsQA: path verdicts, agreement with the last step, and which option was answered', () => {
    const ex = handMadeProsqa('rompus');
    const sound = diagnoseChain(prosqaTask, ex, 'Tom is a wumpus. Every wumpus is a yumpus.', '### Tom is a yumpus.');
    expect(sound).toEqual({ chain: 'sound', agrees: true, option: 'second', lessMentioned: false });
    expect(diagnoseChain(prosqaTask, ex, 'Tom is a gorpus.', '### Tom is a rompus.')).toEqual({
      chain: 'hallucinated-edge',
      agrees: false,
      option: 'first',
      lessMentioned: true,
    });
    expect(diagnoseChain(prosqaTask, ex, 'Tom is a wumpus.', '### Tom is a wumpus.')).toEqual({
      chain: 'misses-target',
      agrees: true,
      option: 'neither',
      lessMentioned: false,
    });
    expect(diagnoseChain(prosqaTask, ex, null, '### Tom is a yumpus.')).toEqual({
      chain: null,
      agrees: null,
      option: 'second',
      lessMentioned: false,
    });
  });
  it('maps every verdict reason, an unknown one to syntax', () => {
    expect(chainClass('longer-path')).toBe('sound');
    expect(chainClass('broken-chain')).toBe('broken-chain');
    expect(chainClass('wrong-state')).toBe('unavailable-numbers');
    expect(chainClass('something-new')).toBe('syntax');
    expect(chainClass('frontier')).toBe('sound');
    expect(chainClass('wrong-frontier')).toBe('broken-chain');
    expect(chainClass('expansion')).toBe('sound');
    expect(chainClass('wrong-expansion')).toBe('broken-chain');
    expect(chainClass('hallucinated-node')).toBe('hallucinated-edge');
    expect(expressionValue('(10+4)/4')).toEqual({ n: 7, d: 2 });
    expect(expressionValue('10+')).toBeNull();
  });

  it("classes every reason the tasks' checkers can give: none falls to 'syntax' unless it is a syntax reason", () => {
    const checkers = [
      'countdown/trace-check.ts',
      'countdown/verify.ts',
      'prosqa/path-check.ts',
      'prosqa/symbolic-reasoning.ts',
      'prosqa/reasoning.ts',
    ];
    const reasons = new Set<string>();
    for (const file of checkers) {
      const text = readFileSync(fileURLToPath(new URL(file, import.meta.url)), 'utf8');
      for (const m of text.matchAll(/reason: '([a-z-]+)'/g)) reasons.add(m[1]);
    }
    expect(reasons.size).toBeGreaterThanOrEqual(10); // the literal ones; the checkers build a few others
    const syntaxReasons = ['empty', 'syntax', 'bad-number', 'unparsed'];
    const unmapped = [...reasons].filter((r) => chainClass(r) === 'syntax' && !syntaxReasons.includes(r));
    expect(unmapped).toEqual([]);
  });
});
