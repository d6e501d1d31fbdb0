/**
 * `npm run -w @telepath/tasks solve -- FILE [--rules sos|all-numbers] [--skip-bad]`: runs the
 * exhaustive solver and the verifier over a Countdown JSONL file (`{"input": "a,b,c", "output":
 * "target"}` per line) and prints {"total": N, "solvable": S, "verified": V}.
 */
import { parseArgs } from 'node:util';
import { runSolve } from './run-solve.js';
import { COUNTDOWN_RULES, type CountdownRules } from '../countdown/rules.js';

const HELP = `Usage: npm run -w @telepath/tasks solve -- FILE [--rules sos|all-numbers] [--skip-bad]

Reads a Countdown JSONL file, one {"input": "a,b,c", "output": "target"} per line, solves every
instance with the exhaustive solver and checks each solution (as an expression and as steps) with
the verifier. Prints one JSON object: {"total": N, "solvable": S, "verified": V}.

Options:
  --rules R     sos (Stream-of-Search: +, ×, non-negative −, exact ÷; default) or all-numbers
                (TinyZero: any order, rational and negative intermediates); both use every number once
  --skip-bad    skip malformed lines instead of stopping at the first; adds "skipped": K
  --help        this text`;

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: { rules: { type: 'string' }, 'skip-bad': { type: 'boolean' }, help: { type: 'boolean' } },
  });
  if (values.help) {
    console.log(HELP);
    return;
  }
  if (positionals.length !== 1) throw new Error(`expected exactly one FILE, got ${positionals.length}\n\n${HELP}`);
  const rules = (values.rules ?? 'sos') as CountdownRules;
  if (!COUNTDOWN_RULES.includes(rules))
    throw new Error(`Unknown rules "${values.rules}". Expected one of: ${COUNTDOWN_RULES.join(', ')}`);
  const r = await runSolve(positionals[0], rules, values['skip-bad'] ?? false);
  console.log(JSON.stringify(r));
}

main().catch((e: unknown) => {
  console.error(e instanceof Error ? e.message : e);
  process.exit(1);
});
