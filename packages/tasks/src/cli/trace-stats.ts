/**
 * `npm run -w @telepath/tasks trace-stats -- [options]`: the Countdown search traces of every search
 * order side by side, before any training (countdown/trace-stats.ts).
 */
import { parseArgs } from 'node:util';
import { intOption } from './options.js';
import { NUMBER_FORMATS, SEARCH_ORDERS, type NumberFormat } from '../countdown/reasoning.js';
import { isCountdownSize } from '../countdown/generate.js';
import { formatTraceStats, traceStats } from '../countdown/trace-stats.js';

const HELP = `Usage: npm run -w @telepath/tasks trace-stats -- [options]

Generates Countdown training instances and writes each as a search trace in every search order
(${SEARCH_ORDERS.join(', ')}), then prints per order: dead ends per trace, length in characters
(question, lines and answer), the share that runs out of the dead-end budget, and how often a trace
multiplies two numbers >= 10; with --guess also the share of traces whose solved three-number state
has a single solution, with their dead ends and length (what data.singleSolutionShare asks more of).

Options:
  --n N            numbers per instance, 2..6 (default 3)
  --count N        instances (default 2000)
  --seed N         generator seed (default 7)
  --backs N        dead ends before the trace writes the solution (default 12)
  --plain          search traces without the check line of each two-number dead end ('search'; default 'search-check')
  --judged         'search-judged': moves into a three-number state with no solution marked " x", not entered
  --guided         'search-guided': from four or more numbers only the first move with a solution is entered,
                   after a written detour into one without in a quarter of the traces
  --guess          'search-guess': below four or more numbers each three-number state gets one written
                   path, the closest to the target, then "back" on a miss
  --reject-inexact each inexact division written "a/b x" (listed and products-last orders only)
  --judge-products each long product with no solution below it written "a*b x", not computed
                   (products-last order only)
  --format F       number format for the lengths: ${NUMBER_FORMATS.join(' | ')} (default reversed)
  --json           one JSON array on stdout
  --help           this text`;

/** The flags that pick a trace other than the default 'search-check'. */
const TRACE_FLAGS = [
  { flag: 'plain', reasoning: 'search' },
  { flag: 'judged', reasoning: 'search-judged' },
  { flag: 'guided', reasoning: 'search-guided' },
  { flag: 'guess', reasoning: 'search-guess' },
] as const;

function main(): void {
  const { values } = parseArgs({
    options: {
      n: { type: 'string' },
      count: { type: 'string' },
      seed: { type: 'string' },
      backs: { type: 'string' },
      plain: { type: 'boolean' },
      judged: { type: 'boolean' },
      guided: { type: 'boolean' },
      guess: { type: 'boolean' },
      'reject-inexact': { type: 'boolean' },
      'judge-products': { type: 'boolean' },
      format: { type: 'string' },
      json: { type: 'boolean' },
      help: { type: 'boolean' },
    },
  });
  if (values.help) {
    console.log(HELP);
    return;
  }
  const named = TRACE_FLAGS.filter((t) => values[t.flag]);
  if (named.length > 1) throw new Error('--plain, --judged, --guided and --guess are different traces: name one');
  const n = intOption('n', values.n, 3);
  if (!isCountdownSize(n)) throw new Error(`--n expects 2..6, got ${n}`);
  const format = (values.format ?? 'reversed') as NumberFormat;
  if (!NUMBER_FORMATS.includes(format))
    throw new Error(`--format expects ${NUMBER_FORMATS.join(' or ')}, got "${format}"`);
  const base = {
    n,
    count: intOption('count', values.count, 2000),
    seed: intOption('seed', values.seed, 7),
    maxBacks: intOption('backs', values.backs, 12),
    reasoning: named[0]?.reasoning ?? 'search-check',
    numberFormat: format,
    rejectInexact: values['reject-inexact'] ?? false,
    judgeLongProducts: values['judge-products'] ?? false,
  } as const;
  const orders = SEARCH_ORDERS.filter(
    (order) => !(base.judgeLongProducts && order !== 'products-last') && !(base.rejectInexact && order === 'closest'),
  );
  const stats = orders.map((order) => traceStats({ ...base, order }));
  if (values.json) console.log(JSON.stringify(stats, null, 2));
  else {
    console.log(
      `Countdown-${n}, ${base.count} instances (seed ${base.seed}), ${base.reasoning}${base.rejectInexact ? ', inexact divisions rejected' : ''}${base.judgeLongProducts ? ', long products judged' : ''}, budget ${base.maxBacks} dead ends`,
    );
    for (const s of stats) console.log(formatTraceStats(s));
  }
}

try {
  main();
} catch (e) {
  console.error(`trace-stats: ${(e as Error).message}`);
  process.exit(1);
}
