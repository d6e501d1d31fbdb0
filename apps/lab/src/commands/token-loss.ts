/**
 * `telepath token-loss <run dir>`: where a finished No-CoT / CoT reference's loss goes on its own
 * test set's gold chains, per target token (evaluation/token-loss.ts).
 */
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { describeBackend, initBackend, type BackendCandidate, type TinyLm } from '@telepath/core';
import { armData } from '../experiment/arm-settings.js';
import { loadTaskData } from '../experiment/data.js';
import { CHAIN_END, tokenLosses } from '../evaluation/token-loss.js';
import { readFinishedRun, restoreFinishedRun } from '../running/restore-run.js';
import { integerOption, printHelp, usageError } from './command-args.js';

const HELP = `Usage: telepath token-loss <run dir> [--max N] [--top K] [--json] [--backend NAME]

The teacher-forced loss of a finished cot arm (No-CoT or CoT) on the gold chains of the first N
questions of its test set (default 200; 0: all), per target token, largest share first: how many,
the mean loss, how often it is the most likely token, and its share of the summed loss. The
chain's last token is counted apart (${CHAIN_END}): it is where the chain decides to stop.
Questions without a gold chain (a Countdown test set) score their answer only.`;

export async function tokenLossCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      max: { type: 'string', default: '200' },
      top: { type: 'string', default: '12' },
      json: { type: 'boolean', default: false },
      backend: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) return printHelp(HELP);
  if (positionals.length !== 1) return usageError('token-loss', 'expected one run directory', HELP);
  const max = integerOption('token-loss', '--max', values.max, 0, '0: all');
  const top = integerOption('token-loss', '--top', values.top, 1);
  const dir = path.resolve(positionals[0]);
  const resolved = await readFinishedRun(dir);
  if (resolved.arm.method !== 'cot')
    throw new Error(
      `${dir}: token-loss reads a cot arm's LM (No-CoT or CoT); this arm's method is ${resolved.arm.method}`,
    );
  const info = await initBackend(values.backend as BackendCandidate | undefined, { quiet: true });
  console.error(describeBackend(info));
  const data = await loadTaskData(resolved.task, armData(resolved, resolved.arm));
  const examples = max > 0 ? data.test.slice(0, max) : data.test;
  const { state, lm, tokenizer } = await restoreFinishedRun(dir, resolved, examples);
  try {
    const withReasoning = resolved.arm.config.variant !== 'no-cot';
    const table = await tokenLosses(lm as TinyLm, tokenizer, examples, withReasoning);
    if (values.json) {
      console.log(JSON.stringify({ run: dir, questions: examples.length, ...table }));
      return 0;
    }
    console.log(
      `${resolved.arm.name} s${resolved.seed}: ${table.tokens} scored tokens on ${examples.length} test questions, mean loss ${table.meanLoss.toFixed(4)}`,
    );
    console.log(
      `${'target'.padEnd(28)} ${'count'.padStart(7)} ${'mean loss'.padStart(9)} ${'argmax %'.padStart(8)} ${'share %'.padStart(7)}`,
    );
    for (const r of table.rows.slice(0, top))
      console.log(
        `${r.target.padEnd(28)} ${String(r.count).padStart(7)} ${r.meanLoss.toFixed(4).padStart(9)} ${(100 * r.argmaxRight).toFixed(1).padStart(8)} ${(100 * r.share).toFixed(1).padStart(7)}`,
      );
    return 0;
  } finally {
    state.dispose();
  }
}
