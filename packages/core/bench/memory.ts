/**
 * Memory over a long run (not a test):
 *   npx tsx packages/core/bench/memory.ts [--backend NAME] [--steps N]
 * trains the reference model (vocabulary 64, 4 layers, 4 heads, width 128, 64 positions, batch
 * 32, AdamW) through core's own train() and prints, every tenth of the run, the loss, the tensor
 * count, RSS and the V8 heap: the tensor count must stay constant and RSS flat after the first
 * steps. `TELEPATH_FUSED=0` runs the plain ops instead of the backend's fused kernels.
 */
import { parseArgs } from 'node:util';
import * as tf from '@tensorflow/tfjs-core';
import {
  activeFusedKernels,
  initBackend,
  progressionLoss,
  Rng,
  TinyLm,
  train,
  type BackendCandidate,
} from '@telepath/core';

const { values } = parseArgs({
  options: { backend: { type: 'string', default: 'native' }, steps: { type: 'string', default: '200' } },
});
const steps = Number(values.steps);
const info = await initBackend(values.backend as BackendCandidate, { quiet: true });
const lm = new TinyLm({ vocabSize: 64, contextLength: 64, layers: 4, heads: 4, width: 128 }, new Rng(0));
console.log(`backend ${info.backend}; fused kernels: ${activeFusedKernels().join(', ') || 'none'}`);
const mb = (b: number) => (b / 1e6).toFixed(0);
await train({
  params: lm.params,
  rng: new Rng(1),
  config: {
    steps,
    logEvery: 1,
    optim: {
      lr: 1e-3,
      lrMinRatio: 1,
      warmupSteps: 0,
      beta1: 0.9,
      beta2: 0.999,
      eps: 1e-8,
      weightDecay: 0.01,
      clipNorm: 1,
    },
  },
  loss: (at) => progressionLoss(lm, at.rng, 32, 64),
  onLog: (l) => {
    if (l.step !== 1 && l.step % Math.max(1, Math.floor(steps / 10)) !== 0) return;
    const m = process.memoryUsage();
    console.log(
      `step ${String(l.step).padStart(4)}: loss ${l.loss.toFixed(3)} tensors ${tf.memory().numTensors} RSS ${mb(m.rss)} MB heap ${mb(m.heapUsed)} MB (${l.ms.toFixed(0)} ms)`,
    );
  },
});
lm.dispose();
