/**
 * `npm run -w @telepath/tasks search-stats -- FILE... [--json]`: what a model's written Countdown
 * searches look like, per samples.jsonl (countdown/search-stats.ts).
 */
import { formatSearchStats, readSearchSamples, searchStats } from '../countdown/search-stats.js';
import { runSamplesCommand } from './options.js';

const HELP = `Usage: npm run -w @telepath/tasks search-stats -- FILE... [--json]

Reads the generations of a Countdown run (its samples.jsonl, one JSON object per line with "text",
"correct" and the checker's "reasoning": {"reason"}) and prints, per file: accuracy and sound share,
accuracy by the number of dead ends the written search shows ("back" lines: 0, 1, 2, 3-5, 6+),
how many traces write a line twice, the checker's verdicts, and the operation of each trace's
first line with wrong arithmetic (before the trace's last line or on it), and how many of all the
arithmetic lines ("a op b=c", judged " x" lines included) are right, by operation and by the line's
place among its trace's arithmetic lines (1st, 2nd, …, 8th and later pooled). When the run's config.resolved.json
is beside the file and its data.reasoning is a search, also accuracy by the dead ends of each
question's full search (rebuilt in the run's number format and search order). When the samples
carry their questions: how often the first move entered leads to a state with a solution (and the
chain's accuracy after a solvable and after a dead one), against the first listed move and a
random move, which judge nothing; how many chains go back to the starting numbers and name
them right; and every try from the starting numbers (a move on them and the lines up to the next
back to them): into a solvable or a dead state, hit (the target reached with every line right),
false hit (the target written with a wrong line) or missed, and the solvable tries' hits by their
place among the chain's tries, all and by how many move sequences solve the state (1, 2-3, 4+;
a move's first try only, repeats counted apart).

Options:
  --json   one JSON object on stdout, file → stats
  --help   this text`;

runSamplesCommand('search-stats', HELP, (file) => searchStats(readSearchSamples(file)), formatSearchStats);
