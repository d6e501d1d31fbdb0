/**
 * What a model's written Countdown searches look like, from its generations (a run's
 * samples.jsonl): accuracy by how many dead ends the search wrote ("back" lines) and by how many
 * the full search of that question has (the trace it was trained to write, rebuilt from the
 * question), how many traces write one line twice (a try repeated), the checker's verdicts, and
 * the operation of each trace's first line with wrong arithmetic (before its last line or on it),
 * and how many of all its arithmetic lines are right, by operation and by place in the trace.
 * The search traces of reasoning.ts are what it reads; plain or state-carrying chains count as
 * searches with no dead end.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import {
  DEFAULT_RENDER_OPTIONS,
  readNumbers,
  searchOptionsOf,
  searchTrace,
  SEARCH_REASONING,
  type CountdownReasoning,
  type NumberFormat,
  type SearchOptions,
  type SearchOrder,
} from './reasoning.js';
import { readRejection } from './trace-check.js';
import {
  countFirstMove,
  emptyFirstMoveStats,
  formatFirstMoveStats,
  type CountdownStart,
  type FirstMoveStats,
} from './first-move.js';
import { pct } from './percent.js';
import { countStartTries, emptyStartTryStats, formatStartTryStats, type StartTryStats } from './start-tries.js';

/** One scored generation: its text in plain digits (reasoning, then "###" and the answer), whether it was right, the checker's reason. */
export interface SearchSample {
  text: string;
  correct: boolean;
  reason?: string;
  /** Dead ends of the full search of its question (`goldDeadEnds`), where known. */
  goldDeadEnds?: number;
  /** Its question's numbers and target, where known. */
  start?: CountdownStart;
}

export interface DeadEndBucket {
  /** "0", "1", "2", "3-5", "6+": dead ends. */
  deadEnds: string;
  count: number;
  correct: number;
}

export interface SearchStats {
  total: number;
  correct: number;
  /** Traces the checker passed. */
  sound: number;
  /** By the dead ends the generation wrote. */
  byDeadEnds: DeadEndBucket[];
  /** By the dead ends of its question's full search (only samples that know it). */
  byGoldDeadEnds: DeadEndBucket[];
  /** Traces that write a line twice, and of those the right ones. */
  repeatLine: number;
  repeatLineCorrect: number;
  /** The checker's verdicts ('ok', 'wrong-arithmetic', …), by count. */
  reasons: Record<string, number>;
  /** Traces with a line whose arithmetic is wrong, by the operation of the first such line. */
  firstWrong: Record<string, WrongLineCount>;
  /** Every arithmetic line of every trace, by operation: how many, and how many are right. */
  lines: Record<string, { count: number; right: number }>;
  /** Rejected divisions "a/b x" ('rejectInexact' traces), and how many of them are inexact, as a rejection must be. */
  rejections: { count: number; right: number };
  /** Products judged dead without being computed, "a*b x" ('judgeLongProducts' traces); the checker's 'wrong-judgement' counts the wrong ones. */
  judgedProducts: number;
  /** Every arithmetic line by its place among its trace's arithmetic lines: [0] the first, …, the last entry all from the BY_PLACE-th on. */
  byPlace: { count: number; right: number }[];
  /** The first entered move against the starting numbers (samples whose question is known; first-move.ts). */
  firstMove: FirstMoveStats;
  /** Every try from the starting numbers: into a solvable or a dead state, and how it ended (start-tries.ts). */
  startTries: StartTryStats;
}

/** Arithmetic lines are counted by place up to this one; later lines are pooled with it. */
export const BY_PLACE = 8;

/** Traces whose first wrong line has one operation: before the trace's last line (and of those the right answers), or the last line. */
export interface WrongLineCount {
  beforeLast: number;
  beforeLastRight: number;
  last: number;
}

const BUCKETS: [string, (n: number) => boolean][] = [
  ['0', (n) => n === 0],
  ['1', (n) => n === 1],
  ['2', (n) => n === 2],
  ['3-5', (n) => n >= 3 && n <= 5],
  ['6+', (n) => n >= 6],
];
const emptyBuckets = (): DeadEndBucket[] => BUCKETS.map(([deadEnds]) => ({ deadEnds, count: 0, correct: 0 }));
const bucketOf = (bs: DeadEndBucket[], n: number) => bs[BUCKETS.findIndex(([, has]) => has(n))];

/** The reasoning lines of a generation: everything before "###", one per line, blanks dropped. */
export function reasoningLines(text: string): string[] {
  return text
    .split('###')[0]
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '');
}

/** "a op b=c", then the state "[..]" where written, then " x" where a judged move is not entered. */
const STEP_LINE = /^(\d+)([-+*/])(\d+)=(\d+)(?: \[[\d ]*\])?(?: x)?$/;

/**
 * A reasoning line's arithmetic (plain digits): its operation and whether c is a op b; null for
 * lines of other shapes ("back [..]", text the model garbled), which are not arithmetic.
 */
export function lineArithmetic(line: string): { op: string; right: boolean } | null {
  const m = STEP_LINE.exec(line);
  if (!m) return null;
  const [a, b, c] = [Number(m[1]), Number(m[3]), Number(m[4])];
  const right = { '+': a + b === c, '-': a - b === c, '*': a * b === c, '/': b !== 0 && b * c === a }[m[2]];
  return { op: m[2], right: right === true };
}

/**
 * The first reasoning line whose arithmetic is wrong, as its operation and whether it is the last
 * line; null when every arithmetic line is right.
 */
export function firstWrongLine(lines: readonly string[]): { op: string; last: boolean } | null {
  for (const [i, line] of lines.entries()) {
    const a = lineArithmetic(line);
    if (a && !a.right) return { op: a.op, last: i === lines.length - 1 };
  }
  return null;
}

/** The numbers and target of a question "Make T from a b c." in its number format, or null for other text. */
export function startOf(question: string, format: NumberFormat): CountdownStart | null {
  const m = /^Make (\d+) from ((?:\d+ )*\d+)\.$/.exec(readNumbers(question.trim(), format));
  return m ? { nums: m[2].split(' ').map(Number), target: Number(m[1]) } : null;
}

/** How a full search is run for `goldDeadEnds`: its order and the trace's variants (SearchOptions). */
export type GoldSearch = Pick<
  SearchOptions,
  'order' | 'judge' | 'rejectInexact' | 'judgeLongProducts' | 'guided' | 'guess'
>;

/**
 * Dead ends of the full search of a question ("Make T from a b c.", in its number format): the
 * search trace with no budget, run as `search` says. Null when the text is not such a question.
 */
export function goldDeadEnds(question: string, format: NumberFormat, search: GoldSearch): number | null {
  const start = startOf(question, format);
  if (!start) return null;
  const { lines } = searchTrace(start.nums, start.target, [], { ...search, maxBacks: Infinity, writeChecks: false });
  return lines.filter((l) => l.startsWith('back')).length;
}

export function searchStats(samples: readonly SearchSample[]): SearchStats {
  const out: SearchStats = {
    total: 0,
    correct: 0,
    sound: 0,
    byDeadEnds: emptyBuckets(),
    byGoldDeadEnds: emptyBuckets(),
    repeatLine: 0,
    repeatLineCorrect: 0,
    reasons: {},
    firstWrong: {},
    lines: {},
    rejections: { count: 0, right: 0 },
    judgedProducts: 0,
    byPlace: Array.from({ length: BY_PLACE }, () => ({ count: 0, right: 0 })),
    firstMove: emptyFirstMoveStats(),
    startTries: emptyStartTryStats(),
  };
  const count = (b: DeadEndBucket, correct: boolean) => {
    b.count++;
    if (correct) b.correct++;
  };
  for (const s of samples) {
    const lines = reasoningLines(s.text);
    const tries = lines.filter((l) => !l.startsWith('back'));
    out.total++;
    if (s.correct) out.correct++;
    count(bucketOf(out.byDeadEnds, lines.length - tries.length), s.correct);
    if (s.goldDeadEnds !== undefined) count(bucketOf(out.byGoldDeadEnds, s.goldDeadEnds), s.correct);
    if (new Set(tries).size < tries.length) {
      out.repeatLine++;
      if (s.correct) out.repeatLineCorrect++;
    }
    if (s.reason !== undefined) {
      out.reasons[s.reason] = (out.reasons[s.reason] ?? 0) + 1;
      if (s.reason === 'ok') out.sound++;
    }
    let place = 0;
    for (const line of lines) {
      const rejected = readRejection(line);
      if (rejected?.op === '/') {
        out.rejections.count++;
        if (rejected.b !== 0 && rejected.a % rejected.b !== 0) out.rejections.right++; // as the checker judges it
      }
      if (rejected?.op === '*') out.judgedProducts++;
      const a = lineArithmetic(line);
      if (!a) continue;
      for (const c of [(out.lines[a.op] ??= { count: 0, right: 0 }), out.byPlace[Math.min(place++, BY_PLACE - 1)]]) {
        c.count++;
        if (a.right) c.right++;
      }
    }
    if (s.start) {
      countFirstMove(out.firstMove, s.start, lines, s.correct);
      countStartTries(out.startTries, s.start, lines);
    }
    const wrong = firstWrongLine(lines);
    if (wrong) {
      const c = (out.firstWrong[wrong.op] ??= { beforeLast: 0, beforeLastRight: 0, last: 0 });
      if (wrong.last) c.last++;
      else {
        c.beforeLast++;
        if (s.correct) c.beforeLastRight++;
      }
    }
  }
  return out;
}

/** A readable summary of one file's stats. */
export function formatSearchStats(name: string, s: SearchStats): string {
  const withGold = s.byGoldDeadEnds.some((b) => b.count > 0);
  const rows = s.byDeadEnds.map((b, i) => {
    const g = s.byGoldDeadEnds[i];
    const gold = withGold ? `   ${String(g.count).padStart(6)}  ${pct(g.correct, g.count).padStart(7)}` : '';
    return `  ${b.deadEnds.padEnd(9)} ${String(b.count).padStart(6)}  ${pct(b.correct, b.count).padStart(7)}${gold}`;
  });
  const reasons = Object.entries(s.reasons)
    .sort((a, b) => b[1] - a[1])
    .map(([r, n]) => `${r} ${n}`)
    .join(', ');
  const wrong = Object.entries(s.firstWrong)
    .map(
      ([op, c]) => `${op} ${c.beforeLast} before the last line (${c.beforeLastRight} of them right), ${c.last} on it`,
    )
    .join('; ');
  const ops = Object.entries(s.lines);
  const [all, right] = ops.reduce(([n, k], [, c]) => [n + c.count, k + c.right], [0, 0]);
  const perOp = ops.map(([op, c]) => `${op} ${c.right} / ${c.count}`).join(', ');
  const perPlace = s.byPlace
    .map((c, i) => `${i + 1}${i === BY_PLACE - 1 ? '+' : ''} ${pct(c.right, c.count)} of ${c.count}`)
    .join(', ');
  return [
    `${name}: ${s.total} generations, ${pct(s.correct, s.total)} right, ${pct(s.sound, s.total)} sound`,
    `  dead ends   written    right${withGold ? '   full search  right' : ''}`,
    ...rows,
    `  a line written twice: ${s.repeatLine} (${pct(s.repeatLineCorrect, s.repeatLine)} of them right)`,
    `  checker: ${reasons || '–'}`,
    `  first wrong arithmetic: ${wrong || 'none'}`,
    `  arithmetic lines right: ${right} / ${all} (${pct(right, all)})${perOp ? `: ${perOp}` : ''}`,
    `  by the line's place among the trace's arithmetic lines: ${perPlace}`,
    ...(s.rejections.count > 0
      ? [
          `  rejected divisions: ${s.rejections.right} / ${s.rejections.count} inexact (${pct(s.rejections.right, s.rejections.count)})`,
        ]
      : []),
    ...(s.judgedProducts > 0 ? [`  products judged dead, not computed: ${s.judgedProducts}`] : []),
    ...formatFirstMoveStats(s.firstMove),
    ...formatStartTryStats(s.startTries),
  ].join('\n');
}

interface RunData {
  reasoning?: string;
  numberFormat?: NumberFormat;
  searchOrder?: SearchOrder;
  rejectInexact?: boolean;
  judgeLongProducts?: boolean;
}

/** The data settings of the run beside a samples file (its config.resolved.json), if there is one. */
function runDataBeside(file: string): RunData | undefined {
  const configFile = path.join(path.dirname(file), 'config.resolved.json');
  if (!existsSync(configFile)) return undefined;
  try {
    return (JSON.parse(readFileSync(configFile, 'utf8')) as { data?: RunData }).data;
  } catch (e) {
    throw new Error(`${configFile}: not JSON (${(e as Error).message})`);
  }
}

/**
 * The samples of one samples.jsonl, their text in plain digits (read in the run's number format);
 * a line that is not such a sample is an error naming the file and line. When the run's
 * config.resolved.json beside it writes a search (SEARCH_REASONING: 'search', 'search-check', …), each sample also
 * gets its question's full-search dead ends, in the run's number format and search order.
 */
export function readSearchSamples(file: string): SearchSample[] {
  const text = readFileSync(file, 'utf8');
  const data = runDataBeside(file);
  // The run's search, as its traces were written (searchOptionsOf), for every sample's full search.
  const search = SEARCH_REASONING.includes(data?.reasoning as CountdownReasoning)
    ? searchOptionsOf({
        ...DEFAULT_RENDER_OPTIONS,
        reasoning: data!.reasoning as CountdownReasoning,
        searchOrder: data!.searchOrder ?? 'closest',
        rejectInexact: data!.rejectInexact === true,
        judgeLongProducts: data!.judgeLongProducts === true,
      })
    : null;
  return text
    .split('\n')
    .map((line, i) => [line, i + 1] as const)
    .filter(([line]) => line.trim() !== '')
    .map(([line, n]) => {
      let row: { text?: unknown; correct?: unknown; question?: unknown; reasoning?: { reason?: unknown } };
      try {
        row = JSON.parse(line);
      } catch {
        throw new Error(`${file}:${n}: not JSON`);
      }
      if (typeof row.text !== 'string' || typeof row.correct !== 'boolean')
        throw new Error(`${file}:${n}: expected a sample with "text" (string) and "correct" (boolean)`);
      const reason = row.reasoning?.reason;
      const gold =
        search && typeof row.question === 'string'
          ? goldDeadEnds(row.question, data?.numberFormat ?? 'plain', search)
          : null;
      const start = typeof row.question === 'string' ? startOf(row.question, data?.numberFormat ?? 'plain') : null;
      return {
        text: readNumbers(row.text, data?.numberFormat),
        correct: row.correct,
        ...(start ? { start } : {}),
        ...(typeof reason === 'string' ? { reason } : {}),
        ...(gold !== null ? { goldDeadEnds: gold } : {}),
      };
    });
}
