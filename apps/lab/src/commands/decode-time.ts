/**
 * `telepath decode-time <run dir>...`: the decoding wall time per question of finished arms on the
 * same test questions, interleaved in one process (evaluation/decode-time.ts), with each arm's
 * time as a ratio of the first arm's. For CoLaR at c = 1, 2, 5 against CoT.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import {
  describeBackend,
  initBackend,
  writeFileAtomic,
  type BackendCandidate,
  type Example,
  type MethodState,
} from '@telepath/core';
import { armData } from '../experiment/arm-settings.js';
import { loadTaskData } from '../experiment/data.js';
import { timeDecoding, type TimedArm } from '../evaluation/decode-time.js';
import { maxNewTokensOf } from '../running/build-arm.js';
import { readFinishedRun, restoreFinishedRun } from '../running/restore-run.js';
import { integerOption, printHelp, usageError } from './command-args.js';

const HELP = `Usage: telepath decode-time <run dir> <run dir>... [--questions N] [--batch B] [--out FILE] [--json] [--backend NAME]

Decodes the first N questions (default 200) of the first run's test set with every named finished
arm (runs/<experiment>/<arm>/s<seed>; trained, final.ckpt written, its evaluation may still run), batch by batch and arm by arm in turn in one process, and
prints each arm's wall time per question, its mean reasoning length and its time as a ratio of the
first arm's with a 95 % bootstrap interval over batches. Each arm decodes with its own evaluation
settings (temperature, top-p, token cap). Every run must hold the same test questions.
--out FILE writes the result as JSON.`;

export async function decodeTimeCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      questions: { type: 'string', default: '200' },
      batch: { type: 'string', default: '' },
      out: { type: 'string' },
      json: { type: 'boolean', default: false },
      backend: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) return printHelp(HELP);
  if (positionals.length < 1) return usageError('decode-time', 'expected at least one run directory', HELP);
  const questions = integerOption('decode-time', '--questions', values.questions, 1);
  const dirs = positionals.map((d) => path.resolve(d));
  const runs = await Promise.all(dirs.map((d) => readFinishedRun(d, { weightsOnly: true })));
  const batchSize = values.batch ? integerOption('decode-time', '--batch', values.batch, 1) : runs[0].eval.batchSize;
  const info = await initBackend(values.backend as BackendCandidate | undefined, { quiet: true });
  console.error(describeBackend(info));
  // Each distinct (task, data settings) is generated once: arms started from one reference share them.
  const loaded = new Map<string, Promise<Example[]>>();
  const testOf = (run: (typeof runs)[number]) => {
    const data = armData(run, run.arm);
    const key = JSON.stringify([run.task, data]);
    if (!loaded.has(key))
      loaded.set(
        key,
        loadTaskData(run.task, data).then((d) => d.test.slice(0, questions)),
      );
    return loaded.get(key)!;
  };
  const examples = await testOf(runs[0]);
  const states: MethodState[] = [];
  try {
    const arms: TimedArm[] = [];
    for (const [i, dir] of dirs.entries()) {
      const run = runs[i];
      const own = await testOf(run);
      const differs = own.findIndex((ex, q) => ex.id !== examples[q]?.id || ex.question !== examples[q].question);
      if (own.length !== examples.length || differs >= 0)
        throw new Error(
          `${dir}: its test questions differ from ${dirs[0]}'s (at question ${differs >= 0 ? differs : own.length}); decode times are compared on the same questions`,
        );
      const { method, state } = await restoreFinishedRun(dir, run, examples);
      states.push(state);
      arms.push({
        label: `${run.experiment}/${run.arm.name} s${run.seed}`,
        generate: (batch, o) => method.generate(state, batch, o),
        settings: {
          maxNewTokens: maxNewTokensOf(run, run.arm),
          temperature: run.eval.temperature,
          topP: run.eval.topP,
        },
      });
    }
    const result = await timeDecoding(arms, examples, { batchSize, seed: runs[0].seed, quiet: values.json });
    if (result === 'interrupted') return 130;
    const out = { runs: dirs, backend: info.backend, ...result };
    if (values.out) {
      await fs.mkdir(path.dirname(path.resolve(values.out)), { recursive: true });
      await writeFileAtomic(path.resolve(values.out), JSON.stringify(out, null, 2) + '\n');
    }
    if (values.json) {
      console.log(JSON.stringify(out));
      return 0;
    }
    console.log(`${result.questions} questions in ${result.batches} batches of ${result.batchSize}, ${info.backend}`);
    if (result.batches < 10)
      console.log(
        `(${result.batches} batches: the bootstrap over batches has little to resample, so the intervals are rough)`,
      );
    console.log(
      `${'arm'.padEnd(44)} ${'ms/question'.padStart(11)} ${'reasoning'.padStart(9)}  time ÷ first arm [95 %]`,
    );
    for (const r of result.rows)
      console.log(
        `${r.label.padEnd(44)} ${r.msPerExample.toFixed(1).padStart(11)} ${r.reasoningLength.toFixed(1).padStart(9)}  ${r.ratio.value.toFixed(3)} [${r.ratio.lo.toFixed(3)}, ${r.ratio.hi.toFixed(3)}]`,
      );
    return 0;
  } finally {
    for (const s of states) s.dispose();
  }
}
