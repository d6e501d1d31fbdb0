/**
 * `tsx packages/core/bench/gpt2-step.bench.ts [--backend NAME] [--batch B] [--seq T] [--steps N]`:
 * training steps (forward, backward, AdamW with clipping, through core's `train()`) of a decoder
 * with GPT-2 small's shape — vocabulary 50257, 12 layers, 12 heads, width 768, 1024 positions
 * (Radford et al. 2019, Table 2's smallest model: listed there as 117M parameters, 124M counted) — on random
 * token ids. Prints one JSON line: backend, adapter, ms/step (median after warm-up), tokens/s.
 * `--layers`/`--width`/`--heads`/`--vocab` shrink it (e.g. for a smoke run on a CPU).
 * A tensor above a WebGPU adapter's binding limit (the 154 MB token embedding on lavapipe's
 * 128 MiB) is refused with an error naming it, never computed wrongly.
 */
import { parseArgs } from 'node:util';
import * as tf from '@tensorflow/tfjs-core';
import { initBackend, maskedCrossEntropy, Rng, TinyLm, train, type BackendCandidate } from '@telepath/core';

const { values: a } = parseArgs({
  options: {
    backend: { type: 'string' },
    batch: { type: 'string', default: '4' },
    seq: { type: 'string', default: '256' },
    steps: { type: 'string', default: '5' },
    warmup: { type: 'string', default: '2' },
    layers: { type: 'string', default: '12' },
    heads: { type: 'string', default: '12' },
    width: { type: 'string', default: '768' },
    vocab: { type: 'string', default: '50257' },
  },
});
const B = Number(a.batch);
const T = Number(a.seq);
const warmup = Number(a.warmup);
const steps = Number(a.steps);
const info = await initBackend(a.backend as BackendCandidate | undefined);
const config = {
  vocabSize: Number(a.vocab),
  contextLength: Math.max(1024, T),
  layers: Number(a.layers),
  heads: Number(a.heads),
  width: Number(a.width),
  initStd: 0.02,
};
const lm = new TinyLm(config, new Rng(0));
const times: number[] = [];
const t0 = performance.now();
const res = await train({
  params: lm.params,
  rng: new Rng(1),
  config: {
    steps: warmup + steps,
    logEvery: 1,
    optim: {
      lr: 1e-4,
      lrMinRatio: 1,
      warmupSteps: 0,
      beta1: 0.9,
      beta2: 0.95,
      eps: 1e-8,
      weightDecay: 0.1,
      clipNorm: 1,
    },
  },
  loss: ({ rng }) =>
    tf.tidy(() => {
      const rows = Array.from({ length: B }, () => Array.from({ length: T + 1 }, () => rng.int(config.vocabSize)));
      const x = tf.tensor2d(
        rows.map((r) => r.slice(0, T)),
        [B, T],
        'int32',
      );
      const y = tf.tensor2d(
        rows.map((r) => r.slice(1)),
        [B, T],
        'int32',
      );
      return maskedCrossEntropy(lm.forward(lm.embed(x)).logits, y, tf.onesLike(y) as tf.Tensor2D);
    }),
  onLog: (l) => {
    times.push(l.ms);
    console.error(`step ${l.step}: ${l.ms.toFixed(0)} ms, loss ${l.loss.toFixed(3)}`);
  },
});
const timed = times.slice(warmup).sort((x, y) => x - y);
const ms = timed[Math.floor(timed.length / 2)];
console.log(
  JSON.stringify({
    bench: 'gpt2-step',
    backend: info.backend,
    adapter: info.adapter ?? null,
    params: lm.size,
    batch: B,
    seq: T,
    msPerStep: Math.round(ms),
    tokensPerSec: Math.round((B * T * 1000) / ms),
    steps,
    firstLoss: res.losses[0],
    lastLoss: res.losses[res.losses.length - 1],
    seconds: Math.round((performance.now() - t0) / 1000),
  }),
);
lm.dispose();
