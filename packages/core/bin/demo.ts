/**
 * `npm start` (until the lab replaces it): trains the reference decoder on a synthetic language
 * (arithmetic progressions), prints the backend, the loss curve and a greedy continuation, and
 * writes a run record under runs/demo/. Ctrl-C stops after a checkpoint; running again resumes.
 */
import { parseArgs } from 'node:util';
import * as path from 'node:path';
import {
  describeBackend,
  generate,
  initBackend,
  progressionBatch,
  progressionLoss,
  Rng,
  RunRecord,
  TinyLm,
  train,
  type BackendCandidate,
} from '@telepath/core';

const HELP = `Usage: npm start -- [--steps N] [--batch B] [--backend NAME] [--out DIR] [--fresh]

Trains a 4-layer, width-128 decoder on arithmetic progressions mod 64 and prints its loss curve.
  --steps N       training steps (default 200)
  --batch B       sequences per step (default 16)
  --backend NAME  node-gpu | node | native | wasm | cpu (default: fastest available)
  --out DIR       run directory (default runs/demo)
  --fresh         discard an earlier run in DIR instead of resuming it`;

const { values } = parseArgs({
  options: {
    steps: { type: 'string', default: '200' },
    batch: { type: 'string', default: '16' },
    backend: { type: 'string' },
    out: { type: 'string', default: 'runs/demo' },
    fresh: { type: 'boolean', default: false },
    help: { type: 'boolean', short: 'h', default: false },
  },
});
if (values.help) {
  console.log(HELP);
  process.exit(0);
}
const steps = positiveInt('--steps', values.steps!);
const batch = positiveInt('--batch', values.batch!);
const T = 32;

const info = await initBackend(values.backend as BackendCandidate | undefined, { quiet: true });
console.log(describeBackend(info));
const config = { lm: { vocabSize: 64, contextLength: 64, layers: 4, heads: 4, width: 128 }, steps, batch, T, seed: 0 };
const dir = path.resolve(values.out!);
if (values.fresh) await import('node:fs').then((fs) => fs.promises.rm(dir, { recursive: true, force: true }));
const record = await RunRecord.open(dir, config, { resume: true }).catch((e: Error) => {
  console.error(`${e.message}\n(run with --fresh to start this directory over, or --out DIR for another one)`);
  process.exit(2);
});
const rng = new Rng(config.seed);
const lm = new TinyLm(config.lm, rng);
console.log(`model: ${lm.size.toLocaleString('en')} parameters; ${steps} steps of ${batch}×${T} tokens`);

let stop = false;
process.once('SIGINT', () => {
  stop = true;
  console.log('\nstopping after this step (checkpoint will be written)…');
});
const result = await train({
  params: lm.params,
  rng: rng.fork('train'),
  modelConfig: lm.config,
  checkpointPath: record.file('checkpoint.bin'),
  config: {
    steps,
    logEvery: 5,
    optim: {
      lr: 3e-3,
      lrMinRatio: 0.1,
      warmupSteps: 5,
      beta1: 0.9,
      beta2: 0.999,
      eps: 1e-8,
      weightDecay: 0.01,
      clipNorm: 1,
    },
  },
  loss: (at) => progressionLoss(lm, at.rng, batch, T),
  onLog: (l) => {
    void record.log(l.step, { 'train/loss': l.loss, 'train/lr': l.lr, 'train/grad_norm': l.gradNorm, ms: l.ms });
    console.log(`step ${String(l.step).padStart(4)}  loss ${l.loss.toFixed(4)}  ${bar(l.loss)}  ${l.ms.toFixed(0)} ms`);
  },
  shouldStop: () => stop,
});
if (result.interrupted) {
  console.log(`interrupted at step ${result.finalStep}; run again to resume from ${record.file('checkpoint.bin')}`);
  process.exit(130);
}
const prompt = progressionBatch(new Rng(123), 1, 6, 64, 5)[0].slice(0, 6);
const continuation = (await generate(lm, [prompt], { maxNewTokens: 8, padId: -1 })).tokens[0];
const expected = Array.from({ length: 8 }, (_, i) => (prompt[5] + (i + 1) * (prompt[1] - prompt[0] + 64)) % 64);
console.log(`prompt ${prompt.join(' ')} → model ${continuation.join(' ')} (true continuation ${expected.join(' ')})`);
const summary = {
  backend: info.backend,
  steps: result.finalStep,
  firstLoss: result.losses[0],
  finalLoss: result.losses[result.losses.length - 1],
  seconds: result.seconds,
  params: lm.size,
};
await record.finish(summary);
console.log(
  `loss ${summary.firstLoss.toFixed(3)} → ${summary.finalLoss.toFixed(3)} in ${result.seconds.toFixed(1)} s on ${info.backend}; record: ${dir}`,
);

function bar(loss: number): string {
  return '#'.repeat(Math.max(1, Math.round((loss / 4.2) * 40)));
}

function positiveInt(flag: string, v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n <= 0) {
    console.error(`${flag} must be a positive integer, got "${v}"\n\n${HELP}`);
    process.exit(2);
  }
  return n;
}
