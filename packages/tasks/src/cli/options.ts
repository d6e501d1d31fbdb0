/** Command-line option helpers shared by the tasks CLIs. */
import { parseArgs } from 'node:util';

/** The value of `--name` as a non-negative integer, `fallback` when it is absent; anything else is an error naming the option. */
export function intOption(name: string, v: string | undefined, fallback: number): number {
  if (v === undefined) return fallback;
  if (!/^\d+$/.test(v)) throw new Error(`--${name} expects a non-negative integer, got "${v}"`);
  return Number(v);
}

/**
 * A command over run sample files (`NAME -- FILE... [--json]`): --help prints `help`; each file is
 * summarised, then printed with `format` or as one JSON object file → summary; an error is one line
 * naming the command, with exit code 1.
 */
export function runSamplesCommand<S>(
  name: string,
  help: string,
  summarize: (file: string) => S,
  format: (file: string, summary: S) => string,
): void {
  try {
    const { values, positionals } = parseArgs({
      allowPositionals: true,
      options: { json: { type: 'boolean' }, help: { type: 'boolean' } },
    });
    if (values.help) {
      console.log(help);
      return;
    }
    if (positionals.length === 0) throw new Error('name at least one samples.jsonl (--help)');
    const stats = positionals.map((f) => [f, summarize(f)] as const);
    if (values.json) console.log(JSON.stringify(Object.fromEntries(stats), null, 2));
    else console.log(stats.map(([f, s]) => format(f, s)).join('\n\n'));
  } catch (e) {
    console.error(`${name}: ${(e as Error).message}`);
    process.exit(1);
  }
}
