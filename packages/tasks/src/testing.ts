/**
 * Small fixtures for other packages' tests (docs/contributing.md §1: a `./testing` entry point so nobody
 * deep-imports): a handful of Examples per task, built in memory without reading datasets/.
 */
import type { Example } from './example.js';
import { generateCountdown } from './countdown/generate.js';
import { generateProsqa } from './prosqa/generate.js';

/** Three GSM8K-style examples (equation steps, numeric answers). */
export function gsm8kFixture(): Example[] {
  return [
    {
      id: 'fixture/gsm8k/0',
      question: 'Ann has 3 apples and buys 4 more. How many apples does she have?',
      steps: ['3+4=7'],
      answer: '7',
    },
    {
      id: 'fixture/gsm8k/1',
      question: 'A box holds 6 eggs. How many eggs are in 5 boxes, minus 2 broken ones?',
      steps: ['6*5=30', '30-2=28'],
      answer: '28',
    },
    {
      id: 'fixture/gsm8k/2',
      question: 'Tom earns 1,200 dollars a month. How much in a year?',
      steps: ['1200*12=14400'],
      answer: '14,400',
    },
  ];
}

/** `count` generated ProsQA examples (deterministic). */
export function prosqaFixture(count = 4, seed = 0): Example[] {
  return generateProsqa({ count, seed, idPrefix: 'fixture/prosqa' });
}

/** `count` generated Countdown examples with n numbers (deterministic). */
export function countdownFixture(count = 4, n = 3, seed = 0): Example[] {
  return generateCountdown({ n, count, seed, split: 'train' });
}

/** Tom → wumpus → yumpus; facts also mention yumpus twice more and rompus once; options yumpus (answer) and rompus. */
export function handMadeProsqa(listedFirst: 'yumpus' | 'rompus', id = 'hand/0'): Example {
  const symbols = ['Tom', 'wumpus', 'yumpus', 'rompus', 'gorpus', 'lempus'];
  const edges: [number, number][] = [
    [0, 1],
    [1, 2],
    [4, 2],
    [5, 2],
    [4, 3],
  ];
  const [a, b] = listedFirst === 'yumpus' ? ['yumpus', 'rompus'] : ['rompus', 'yumpus'];
  return {
    id,
    question: `Tom is a wumpus. Every wumpus is a yumpus. Every gorpus is a yumpus. Every lempus is a yumpus. Every gorpus is a rompus. Is Tom a ${a} or ${b}?`,
    steps: ['Tom is a wumpus.', 'Every wumpus is a yumpus.'],
    answer: 'Tom is a yumpus.',
    meta: { graph: { symbols, edges, root: 0, target: 2, negTarget: 3 } },
  };
}
