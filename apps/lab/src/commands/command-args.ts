import { UserError } from '@telepath/core';

/**
 * What every `telepath` command does alike with its arguments once node:util's parseArgs has read
 * them: print its help, refuse a wrong set of arguments with the help beside the reason (exit 2),
 * and read an integer option or throw a one-line error naming the command and the flag.
 */

/** A bad option value: the CLI prints its message alone and exits 2, as for any usage error. */
export class OptionError extends UserError {
  constructor(message: string) {
    super(message);
    this.name = 'OptionError';
  }
}

/** Prints the command's help to stdout; the exit status of `telepath <command> --help`. */
export function printHelp(help: string): 0 {
  console.log(help);
  return 0;
}

/** Prints `telepath <command>: <why>` and the help to stderr; the exit status of a usage error. */
export function usageError(command: string, why: string, help: string): 2 {
  console.error(`telepath ${command}: ${why}\n\n${help}`);
  return 2;
}

/**
 * The integer an option holds, at least `min`; otherwise an OptionError
 * `telepath <command> <flag>: expected an integer ≥ <min> (<meaning>), got "<raw>"`.
 */
export function integerOption(
  command: string,
  flag: string,
  raw: string | undefined,
  min: number,
  meaning = '',
): number {
  const n = Number(raw);
  if (raw === undefined || raw.trim() === '' || !Number.isInteger(n) || n < min)
    throw new OptionError(
      `telepath ${command} ${flag}: expected an integer ≥ ${min}${meaning ? ` (${meaning})` : ''}, got ${JSON.stringify(raw)}`,
    );
  return n;
}
