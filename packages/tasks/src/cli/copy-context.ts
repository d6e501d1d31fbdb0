/**
 * `npm run -w @telepath/tasks copy-context`: on the real ProsQA test questions (grouped rendering),
 * the share of the lookup line's tokens that a copy of the n tokens before it from the question
 * fixes, for the two ways of writing the line (prosqa/copy-context.ts).
 */
import { loadProsqa } from '../prosqa/load.js';
import { copyContextRate } from '../prosqa/copy-context.js';
import { toSymbolicProsqa } from '../prosqa/symbolic.js';

const HELP = `Usage: npm run -w @telepath/tasks copy-context

For the 500 real ProsQA test questions in the grouped rendering, prints how much of the lookup line
(the asked person's children) a token-by-token copy from the question fixes when it matches the 1,
2 or 3 tokens before each token: for "+ Sally c1 c2 …" (reasoning lookup) and "+ Sally: c1 c2 …."
(lookup-span).`;

async function main(): Promise<void> {
  if (process.argv.includes('--help')) {
    console.log(HELP);
    return;
  }
  const { examples } = await loadProsqa('test');
  for (const reasoning of ['lookup', 'lookup-span'] as const) {
    const lines = examples.map((ex) => toSymbolicProsqa(ex, reasoning, 'grouped'));
    const rates = [1, 2, 3].map(
      (n) => `${n} token${n > 1 ? 's' : ''} ${(100 * copyContextRate(lines, n)).toFixed(1)} %`,
    );
    console.log(`${reasoning.padEnd(12)} ${rates.join('   ')}`);
  }
}

main().catch((e: unknown) => {
  console.error(e instanceof Error ? e.message : e);
  process.exit(1);
});
