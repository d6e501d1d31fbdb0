/**
 * The `telepath` CLI: dispatches to each command (commands/, queue/command.ts). `telepath <command> --help` for each.
 */
import * as path from 'node:path';
import { isUserError } from '@telepath/core';
import { analyzeCommand } from './commands/analyze.js';
import { colarProbeCommand } from './commands/colar-probe.js';
import { OptionError } from './commands/command-args.js';
import { decodeTimeCommand } from './commands/decode-time.js';
import { evalCommand } from './commands/eval.js';
import { listCommand } from './commands/list.js';
import { lmCommand } from './commands/lm.js';
import { reportCommand } from './commands/report.js';
import { runCommand } from './commands/run.js';
import { statusCommand } from './commands/status.js';
import { tokenLossCommand } from './commands/token-loss.js';
import { queueCommand, workerCommand } from './queue/command.js';

const HELP = `telepath — latent reasoning experiments

Usage: telepath <command> [options]

Commands:
  run <experiment.json>    train and evaluate every arm × seed, print the comparison table
  status <experiment.json> where every arm × seed stands: done, training, stopped or not started
  eval <run dir> --data F  evaluate a trained arm on another file of the same task
  token-loss <run dir>     where a finished reference's loss goes on its test set's gold chains, per token
  colar-probe <run dir>    where a finished CoLaR arm loses its chain: teacher-forced, self-fed, decoding alone
  decode-time <run dir>... decoding wall time per question of finished arms, interleaved on the same questions
  report <name | dir>      rebuild tables, charts and the HTML report from run records
  analyze <run dir>        subspace analysis of a latent arm's latents (tables, heatmaps)
  lm <folder>              load a Hugging Face GPT-2 folder: one forward pass and a greedy continuation
  list                     experiments, tasks and methods
  queue add|status <exp>   arms × seeds as jobs on a Redis queue, and where they stand (several machines)
  worker --redis URL       take jobs from that queue and train them (one per machine)

Common options:
  --runs DIR               where run records go (default: runs)
  --backend NAME           node-gpu | node | native | wasm | cpu (default: fastest available)
  -h, --help               help for a command`;

export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (!command || command === '-h' || command === '--help' || command === 'help') {
    console.log(HELP);
    return command ? 0 : 2;
  }
  switch (command) {
    case 'run':
      return runCommand(rest);
    case 'eval':
      return evalCommand(rest);
    case 'token-loss':
      return tokenLossCommand(rest);
    case 'colar-probe':
      return colarProbeCommand(rest);
    case 'decode-time':
      return decodeTimeCommand(rest);
    case 'report':
      return reportCommand(rest);
    case 'analyze':
      return analyzeCommand(rest);
    case 'list':
      return listCommand(rest);
    case 'status':
      return statusCommand(rest);
    case 'lm':
      return lmCommand(rest);
    case 'queue':
      return queueCommand(rest);
    case 'worker':
      return workerCommand(rest);
    default:
      console.error(
        `telepath: unknown command "${command}". Expected one of: run, status, eval, token-loss, colar-probe, decode-time, report, analyze, lm, list, queue, worker\n\n${HELP}`,
      );
      return 2;
  }
}

/** node:util parseArgs' errors (an unknown option, a missing value): the user's, not bugs. */
function isParseArgsError(e: unknown): boolean {
  const code = (e as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS_');
}

/**
 * What the CLI prints for an error that ends a command. A bad config, value or file (core's
 * UserError — ConfigError, DataError, a corrupt checkpoint — a plain Error with its own clear
 * message, or an option parseArgs does not know) is one line, no stack; anything else is a bug,
 * and its stack is what a report needs.
 */
export function cliErrorText(e: unknown): string {
  if (!(e instanceof Error)) return `telepath: ${String(e)}`;
  if (isParseArgsError(e)) return `telepath: ${e.message.split('. ')[0]} (telepath <command> --help lists the options)`;
  const bug = [e, e.cause].find((x): x is Error => x instanceof Error && !isUserError(x));
  return bug?.stack ? `telepath: ${e.message}\n${bug.stack}` : `telepath: ${e.message}`;
}

/** The exit status for an error that ends a command: 2 for a usage error (a bad option), 1 otherwise. */
export function cliExitCode(e: unknown): 1 | 2 {
  return e instanceof OptionError || isParseArgsError(e) ? 2 : 1;
}

const isMain = process.argv[1] && path.resolve(process.argv[1]) === path.resolve(new URL(import.meta.url).pathname);
if (isMain) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (e: Error) => {
      console.error(cliErrorText(e));
      process.exit(cliExitCode(e));
    },
  );
}
