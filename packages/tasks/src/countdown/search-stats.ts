/**
 * What a model's written Countdown searches look like, from its generations (a run's
 * samples.jsonl): accuracy by how many dead ends the search wrote ("back" lines), how many traces
 * write one line twice (a try repeated), and the checker's verdicts. The search traces of
 * reasoning.ts are what it reads; plain or state-carrying chains count as searches with no dead end.
 */
import { readFileSync } from 'node:fs';

/** One scored generation: its text (reasoning, then "###" and the answer), whether it was right, the checker's reason. */
export interface SearchSample {
  text: string;
  correct: boolean;
  reason?: string;
}

export interface DeadEndBucket {
  /** "0", "1", "2", "3-5", "6+": dead ends written. */
  deadEnds: string;
  count: number;
  correct: number;
}

export interface SearchStats {
  total: number;
  correct: number;
  /** Traces the checker passed. */
  sound: number;
  byDeadEnds: DeadEndBucket[];
  /** Traces that write a line twice, and of those the right ones. */
  repeatLine: number;
  repeatLineCorrect: number;
  /** The checker's verdicts ('ok', 'wrong-arithmetic', …), by count. */
  reasons: Record<string, number>;
}

const BUCKETS: [string, (n: number) => boolean][] = [
  ['0', (n) => n === 0],
  ['1', (n) => n === 1],
  ['2', (n) => n === 2],
  ['3-5', (n) => n >= 3 && n <= 5],
  ['6+', (n) => n >= 6],
];

/** The reasoning lines of a generation: everything before "###", one per line, blanks dropped. */
export function reasoningLines(text: string): string[] {
  return text
    .split('###')[0]
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '');
}

export function searchStats(samples: readonly SearchSample[]): SearchStats {
  const byDeadEnds = BUCKETS.map(([deadEnds]) => ({ deadEnds, count: 0, correct: 0 }));
  const out: SearchStats = {
    total: 0,
    correct: 0,
    sound: 0,
    byDeadEnds,
    repeatLine: 0,
    repeatLineCorrect: 0,
    reasons: {},
  };
  for (const s of samples) {
    const lines = reasoningLines(s.text);
    const deadEnds = lines.filter((l) => l.startsWith('back')).length;
    const bucket = byDeadEnds[BUCKETS.findIndex(([, has]) => has(deadEnds))];
    const tries = lines.filter((l) => !l.startsWith('back'));
    const repeats = new Set(tries).size < tries.length;
    out.total++;
    bucket.count++;
    if (s.correct) {
      out.correct++;
      bucket.correct++;
    }
    if (repeats) {
      out.repeatLine++;
      if (s.correct) out.repeatLineCorrect++;
    }
    if (s.reason !== undefined) {
      out.reasons[s.reason] = (out.reasons[s.reason] ?? 0) + 1;
      if (s.reason === 'ok') out.sound++;
    }
  }
  return out;
}

const pct = (k: number, n: number) => (n ? `${((100 * k) / n).toFixed(1)} %` : '–');

/** A readable summary of one file's stats. */
export function formatSearchStats(name: string, s: SearchStats): string {
  const rows = s.byDeadEnds.map(
    (b) => `  ${b.deadEnds.padEnd(4)} ${String(b.count).padStart(6)}  ${pct(b.correct, b.count)}`,
  );
  const reasons = Object.entries(s.reasons)
    .sort((a, b) => b[1] - a[1])
    .map(([r, n]) => `${r} ${n}`)
    .join(', ');
  return [
    `${name}: ${s.total} generations, ${pct(s.correct, s.total)} right, ${pct(s.sound, s.total)} sound`,
    `  dead ends written  count  right`,
    ...rows,
    `  a line written twice: ${s.repeatLine} (${pct(s.repeatLineCorrect, s.repeatLine)} of them right)`,
    `  checker: ${reasons || '–'}`,
  ].join('\n');
}

/** The samples of one samples.jsonl; a line that is not such a sample is an error naming the file and line. */
export function readSearchSamples(file: string): SearchSample[] {
  const text = readFileSync(file, 'utf8');
  return text
    .split('\n')
    .map((line, i) => [line, i + 1] as const)
    .filter(([line]) => line.trim() !== '')
    .map(([line, n]) => {
      let row: { text?: unknown; correct?: unknown; reasoning?: { reason?: unknown } };
      try {
        row = JSON.parse(line);
      } catch {
        throw new Error(`${file}:${n}: not JSON`);
      }
      if (typeof row.text !== 'string' || typeof row.correct !== 'boolean')
        throw new Error(`${file}:${n}: expected a sample with "text" (string) and "correct" (boolean)`);
      const reason = row.reasoning?.reason;
      return { text: row.text, correct: row.correct, ...(typeof reason === 'string' ? { reason } : {}) };
    });
}
