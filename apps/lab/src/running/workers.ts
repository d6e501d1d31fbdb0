/**
 * `telepath run --workers N`: N processes on one experiment, one per share of the cores. The extra
 * N − 1 run this same command (without --workers, with --quiet) as child processes; the run locks
 * split the arms between them (run-experiment.ts), and the parent prints the table once every arm
 * is done. Unless TELEPATH_NATIVE_THREADS is set, each process's native backend gets
 * ⌊cores / N⌋ threads. A child's log lines reach stderr prefixed with "[worker k]".
 */
import { spawn } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { createInterface } from 'node:readline';

export interface Workers {
  /** Resolves with the children's exit codes once they have all exited. */
  exited: Promise<number[]>;
}

/** `args`: the run command's own arguments, with any --workers already removed; `n` ≥ 2, as the CLI checked. */
export function startWorkers(cli: string, args: string[], n: number): Workers {
  process.env.TELEPATH_NATIVE_THREADS ??= String(Math.max(1, Math.floor(availableParallelism() / n)));
  const children = Array.from({ length: n - 1 }, (_, i) => {
    const child = spawn(process.execPath, [...process.execArgv, cli, 'run', ...args, '--quiet'], {
      stdio: ['ignore', 'ignore', 'pipe'],
      env: process.env,
    });
    createInterface({ input: child.stderr }).on('line', (line) => console.error(`[worker ${i + 2}] ${line}`));
    return new Promise<number>((resolve) => child.on('exit', (code, signal) => resolve(code ?? (signal ? 128 : 1))));
  });
  return { exited: Promise.all(children) };
}

/** `args` without `--workers N` / `--workers=N`. */
export function withoutWorkers(args: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--workers') i++;
    else if (!args[i].startsWith('--workers=')) out.push(args[i]);
  }
  return out;
}
