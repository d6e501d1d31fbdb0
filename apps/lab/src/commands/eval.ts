/**
 * `telepath eval <run dir> --data FILE`: rebuilds a finished arm from its run record (tokenizer,
 * model config, phase checkpoints) and evaluates it on another file of the same task. Writes
 * eval-<file>-<hash>.json and eval-<file>-<hash>.samples.jsonl into the run directory, the hash
 * taken from the data file's absolute path, so two files with one base name never overwrite each
 * other's result.
 */
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import {
  describeBackend,
  initBackend,
  writeFileAtomic,
  type BackendCandidate,
  type Example,
  type LatentMethod,
  type MethodState,
} from '@telepath/core';
import {
  countdownAllNumbersTask,
  countdownTask,
  DEFAULT_RENDER_OPTIONS,
  gsm8kTask,
  loadCountdownJsonl,
  loadGsm8kJsonlFile,
  parseProsqaJson,
  prosqaTask,
  renderCountdown,
  renderProsqa,
  type Task,
} from '@telepath/tasks';
import { DEFAULT_PROSQA_DATA, type CountdownData, type ProsqaData } from '../experiment/data.js';
import { evaluatePasses } from '../evaluation/eval-passes.js';
import { armData } from '../experiment/arm-settings.js';
import { maxNewTokensOf } from '../running/build-arm.js';
import { readFinishedRun, restoreFinishedRun } from '../running/restore-run.js';
import { integerOption, printHelp, usageError } from './command-args.js';

const HELP = `Usage: telepath eval <run dir> --data FILE [--checkpoint PHASE] [--max N] [--json] [--backend NAME]

Evaluates the trained arm in <run dir> (runs/<experiment>/<arm>/s<seed>) on FILE:
  countdown  JSONL, one {"input": "a,b,c", "output": "target"} per line
  gsm8k      GSM8K's JSONL ({"question", "answer"} with <<…>> annotations and ####)
  prosqa     the ProsQA JSON format
Writes eval-<file>-<hash>.json and eval-<file>-<hash>.samples.jsonl into the run directory
(<hash>: 8 hex digits of the sha256 of FILE's absolute path).

--checkpoint PHASE  the weights of <PHASE>.ckpt (e.g. sft, stage3) instead of final.ckpt: a run
                    still training (its latest checkpoint; the run may go on meanwhile) or an
                    earlier phase. The arm is built from its initFrom source as training built it,
                    and decodes as it did in that phase (a Coconut stage with that stage's number
                    of thoughts; every other method as the finished arm). Results go to
                    eval-<file>-<hash>.<PHASE>-step<N>.json (N: the checkpoint's step).`;

export async function evalCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      data: { type: 'string' },
      max: { type: 'string', default: '0' },
      checkpoint: { type: 'string' },
      json: { type: 'boolean', default: false },
      backend: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) return printHelp(HELP);
  if (positionals.length !== 1 || !values.data)
    return usageError('eval', 'expected a run directory and --data FILE', HELP);
  const dir = path.resolve(positionals[0]);
  const phase = values.checkpoint;
  if (phase !== undefined && !/^[A-Za-z0-9_-]+$/.test(phase))
    return usageError(
      'eval',
      `--checkpoint: expected a phase name such as sft or stage3, got ${JSON.stringify(phase)}`,
      HELP,
    );
  const resolved = await readFinishedRun(dir, { started: phase !== undefined });
  const { examples, task } = await loadEvalFile(resolved.task, armData(resolved, resolved.arm), values.data);
  if (examples.length === 0)
    throw new Error(`${values.data}: no examples to evaluate (an empty file); an accuracy of 0/0 would mean nothing`);
  const max = integerOption('eval', '--max', values.max, 0, '0: every example');
  const info = await initBackend(values.backend as BackendCandidate | undefined, { quiet: true });
  console.error(describeBackend(info));
  const { method, state, step } = await restoreFinishedRun(dir, resolved, examples, { upToPhase: phase });
  try {
    const subset = max > 0 ? examples.slice(0, max) : examples;
    const maxNewTokens = maxNewTokensOf(resolved, resolved.arm);
    // A phase checkpoint decodes as the arm did in that phase (a Coconut stage: its own thoughts).
    const inPhase = phase === undefined ? method : { ...method, generate: atPhase(method, phase) };
    const ev = await evaluatePasses(
      inPhase,
      resolved.arm.config,
      state,
      subset,
      task,
      { ...resolved.eval, maxNewTokens },
      { label: `eval ${path.basename(values.data)}`, seed: resolved.seed },
    );
    if (ev === 'interrupted') return 130;
    const base = evalResultBase(values.data) + (phase === undefined ? '' : `.${phase}-step${step}`);
    const { samples, ...summary } = ev;
    const weights = phase === undefined ? {} : { checkpoint: { phase, step } };
    const out = {
      run: dir,
      data: path.resolve(values.data),
      arm: resolved.arm.name,
      seed: resolved.seed,
      ...weights,
      ...summary,
    };
    await writeFileAtomic(path.join(dir, `${base}.json`), JSON.stringify(out, null, 2) + '\n');
    await writeFileAtomic(
      path.join(dir, `${base}.samples.jsonl`),
      samples.map((s) => JSON.stringify(s)).join('\n') + '\n',
    );
    if (values.json) console.log(JSON.stringify(out));
    else
      console.log(
        `${resolved.arm.name} s${resolved.seed}${phase === undefined ? '' : ` (${phase}.ckpt, step ${step})`} on ${values.data}: accuracy ${(100 * ev.accuracy).toFixed(1)}% ± ${(100 * ev.stderr).toFixed(1)} (${ev.correct}/${ev.total}), reasoning ${ev.reasoningLength.toFixed(1)}, ${ev.msPerExample.toFixed(1)} ms/example${ev.passes ? ` (mean of ${ev.passes.n} decoding passes, 95 % interval ± ${(100 * ev.passes.ci95).toFixed(1)})` : ''}`,
      );
    return 0;
  } finally {
    state.dispose();
  }
}

/** The method's generate, decoding as in training phase `phase`. */
function atPhase<C, S extends MethodState>(method: LatentMethod<C, S>, phase: string): LatentMethod<C, S>['generate'] {
  return (state, batch, g) => method.generate(state, batch, { ...g, phase });
}

/** eval-<file name>-<8 hex of the sha256 of its absolute path>: one result per data file. */
export function evalResultBase(dataFile: string): string {
  const hash = createHash('sha256').update(path.resolve(dataFile)).digest('hex').slice(0, 8);
  return `eval-${path.basename(dataFile).replace(/[^A-Za-z0-9._-]/g, '_')}-${hash}`;
}

async function loadEvalFile(
  taskName: string,
  data: object,
  file: string,
): Promise<{ examples: Example[]; task: Task }> {
  switch (taskName) {
    case 'countdown': {
      const { rules, numberFormat = 'plain' } = data as CountdownData;
      // Questions in the number format the arm was trained on (solutions: none in a test file).
      const examples = (await loadCountdownJsonl(file)).examples.map((e) =>
        renderCountdown(e, { ...DEFAULT_RENDER_OPTIONS, numberFormat }),
      );
      return { examples, task: rules === 'all-numbers' ? countdownAllNumbersTask : countdownTask };
    }
    case 'gsm8k':
      return { examples: (await loadGsm8kJsonlFile(file)).examples, task: gsm8kTask };
    case 'prosqa': {
      let text: string;
      try {
        text = await fs.readFile(file, 'utf8');
      } catch (e) {
        throw new Error(`cannot read ${file}: ${(e as Error).message}`);
      }
      const { rendering, reasoning } = { ...DEFAULT_PROSQA_DATA, ...(data as Partial<ProsqaData>) };
      const examples = parseProsqaJson(text, file, `file:${path.basename(file)}`, []);
      return {
        examples: examples.map((e) => renderProsqa(e, rendering, reasoning)),
        task: prosqaTask,
      };
    }
    default:
      throw new Error(
        `telepath eval --data: files of task "${taskName}" are not supported (countdown, gsm8k, prosqa are)`,
      );
  }
}
