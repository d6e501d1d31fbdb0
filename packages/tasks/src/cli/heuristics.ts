/**
 * `npm run -w @telepath/tasks heuristics -- [--json] [--countdown-n LIST] [--count N] [--seed N]`:
 * what each task's heuristics (heuristics.ts) score on its test sets — ProsQA's test and valid files,
 * GSM8K's test file, and Countdown's generated `val` and `val_target` splits per n (seed `--seed`;
 * the lab's test sets also avoid the training split's solutions, so its numbers differ slightly).
 */
import { parseArgs } from 'node:util';
import { generateCountdown } from '../countdown/generate.js';
import { countdownTask } from '../countdown/task.js';
import { loadGsm8k } from '../gsm8k/load.js';
import { gsm8kTask } from '../gsm8k/task.js';
import { loadProsqa } from '../prosqa/load.js';
import { prosqaTask } from '../prosqa/task.js';
import { scoreHeuristics } from './score-heuristics.js';

const HELP = `Usage: npm run -w @telepath/tasks heuristics -- [--json] [--countdown-n 3,4,5] [--count 1000] [--seed 0]

Scores every task heuristic (ProsQA less-mentioned / first-listed / chance, Countdown sum / greedy,
GSM8K last-number) on ProsQA test + valid, GSM8K test, and Countdown val + val_target per n.`;

const { values } = parseArgs({
  options: {
    json: { type: 'boolean', default: false },
    'countdown-n': { type: 'string', default: '3,4,5' },
    count: { type: 'string', default: '1000' },
    seed: { type: 'string', default: '0' },
    help: { type: 'boolean', short: 'h', default: false },
  },
});
if (values.help) {
  console.log(HELP);
  process.exit(0);
}
const seed = Number(values.seed);
const count = Number(values.count);
const sizes = values['countdown-n']!.split(',').map(Number);
if (
  !Number.isInteger(seed) ||
  !Number.isInteger(count) ||
  count < 1 ||
  !sizes.every((n) => Number.isInteger(n) && n >= 2 && n <= 6)
) {
  console.error(
    `heuristics: --seed and --count take integers (count ≥ 1), --countdown-n a list of sizes 2..6\n\n${HELP}`,
  );
  process.exit(2);
}
const sets = [
  { set: 'prosqa/test', task: prosqaTask, examples: (await loadProsqa('test')).examples },
  { set: 'prosqa/valid', task: prosqaTask, examples: (await loadProsqa('valid')).examples },
  { set: 'gsm8k/test', task: gsm8kTask, examples: (await loadGsm8k('test')).examples },
  ...sizes.flatMap((n) =>
    (['val', 'val_target'] as const).map((split) => ({
      set: `countdown-n${n}/${split}`,
      task: countdownTask,
      examples: generateCountdown({ n, count, seed, split }),
    })),
  ),
];
const rows = sets.flatMap(({ set, task, examples }) =>
  scoreHeuristics(task, examples, seed).map((s) => ({ set, ...s })),
);
if (values.json) console.log(JSON.stringify(rows));
else
  for (const r of rows)
    console.log(
      `${r.set.padEnd(24)} ${r.heuristic.padEnd(16)} ${(100 * r.accuracy).toFixed(1).padStart(5)} %  (${r.correct} / ${r.total})`,
    );
