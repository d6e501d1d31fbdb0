/**
 * `npm run -w @telepath/tasks generate -- prosqa|countdown [options] --out FILE`: writes a
 * generated split — ProsQA in Coconut's JSON format (one array on one line, like the real files),
 * Countdown in the public JSONL format or as Examples — and prints its count and sha256.
 */
import { parseArgs } from 'node:util';
import { writeFileAtomic } from '@telepath/core';
import { COUNTDOWN_SPLITS, generateCountdown, type CountdownSplit } from '../countdown/generate.js';
import { toCountdownJsonl } from '../countdown/load.js';
import { sha256Hex } from '../files.js';
import { generateProsqa } from '../prosqa/generate.js';
import { loadProsqa, toProsqaRecord } from '../prosqa/load.js';

const HELP = `Usage:
  npm run -w @telepath/tasks generate -- prosqa [--count 17886] [--seed 0] --out FILE
  npm run -w @telepath/tasks generate -- countdown --n N [--split train|val|val_target] [--count 1000] [--seed 0] [--format public|examples] --out FILE

prosqa     ProsQA-like training split in Coconut's format (questions of the real valid/test excluded).
countdown  Solvable Stream-of-Search instances with n numbers (2..6); 'public' writes
           {"input": "a,b,c", "output": "target"} per line (what the solve command reads),
           'examples' writes one Example (question, steps, answer, meta) per line.
Prints {"file", "count", "sha256"}.`;

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      count: { type: 'string' },
      seed: { type: 'string' },
      out: { type: 'string' },
      n: { type: 'string' },
      split: { type: 'string' },
      format: { type: 'string' },
      help: { type: 'boolean' },
    },
  });
  if (values.help || positionals.length === 0) {
    console.log(HELP);
    return;
  }
  const num = (name: string, v: string | undefined, fallback?: number): number => {
    if (v === undefined && fallback !== undefined) return fallback;
    if (v === undefined || !/^\d+$/.test(v))
      throw new Error(`--${name} expects a non-negative integer, got ${JSON.stringify(v)}`);
    return Number(v);
  };
  if (!values.out) throw new Error('--out FILE is required');
  const seed = num('seed', values.seed, 0);
  let text: string;
  if (positionals[0] === 'prosqa') {
    const real = [...(await loadProsqa('valid')).examples, ...(await loadProsqa('test')).examples];
    const ex = generateProsqa({
      count: num('count', values.count, 17_886),
      seed,
      exclude: new Set(real.map((e) => e.question)),
    });
    text = JSON.stringify(ex.map(toProsqaRecord));
  } else if (positionals[0] === 'countdown') {
    const split = (values.split ?? 'train') as CountdownSplit;
    if (!COUNTDOWN_SPLITS.includes(split))
      throw new Error(`Unknown split "${split}". Expected one of: ${COUNTDOWN_SPLITS.join(', ')}`);
    const format = values.format ?? 'public';
    if (format !== 'public' && format !== 'examples')
      throw new Error(`Unknown format "${format}". Expected one of: public, examples`);
    const ex = generateCountdown({ n: num('n', values.n), count: num('count', values.count, 1000), seed, split });
    text = format === 'public' ? toCountdownJsonl(ex) : ex.map((e) => JSON.stringify(e) + '\n').join('');
  } else {
    throw new Error(`Unknown task "${positionals[0]}". Expected one of: prosqa, countdown`);
  }
  await writeFileAtomic(values.out, text);
  const count =
    positionals[0] === 'prosqa' ? (JSON.parse(text) as unknown[]).length : text.split('\n').filter(Boolean).length;
  console.log(JSON.stringify({ file: values.out, count, sha256: sha256Hex(text) }));
}

main().catch((e: unknown) => {
  console.error(e instanceof Error ? e.message : e);
  process.exit(1);
});
