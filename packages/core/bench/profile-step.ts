/**
 * `tsx packages/core/bench/profile-step.ts [--backend NAME]`: kernel-by-kernel profile (tf.profile)
 * of one reference training step (forward, backward, AdamW), after two warm-up steps. Prints the
 * kernels by total time, with call counts.
 */
import { parseArgs } from 'node:util';
import * as tf from '@tensorflow/tfjs-core';
import {
  AdamW,
  DEFAULT_OPTIM_CONFIG,
  initBackend,
  progressionLoss,
  Rng,
  TinyLm,
  type BackendCandidate,
} from '@telepath/core';

const { values } = parseArgs({
  options: { backend: { type: 'string', default: 'wasm' }, top: { type: 'string', default: '25' } },
});
await initBackend(values.backend as BackendCandidate, { quiet: true });
const lm = new TinyLm({ vocabSize: 64, contextLength: 64, layers: 4, heads: 4, width: 128 }, new Rng(0));
const opt = new AdamW(DEFAULT_OPTIM_CONFIG, lm.params);
const byVar = new Map([...lm.params].map(([n, v]) => [v.name, n]));
const step = (i: number) =>
  tf.tidy(() => {
    const { grads } = tf.variableGrads(() => progressionLoss(lm, new Rng(i), 32, 64));
    opt.apply(new Map(Object.entries(grads).map(([k, g]) => [byVar.get(k)!, g])), 1e-3);
  });
step(0);
step(1);
const t0 = performance.now();
const prof = await tf.profile(() => step(2));
const wall = performance.now() - t0;
const agg = new Map<string, { ms: number; n: number }>();
for (const k of prof.kernels) {
  const a = agg.get(k.name) ?? { ms: 0, n: 0 };
  a.ms += typeof k.kernelTimeMs === 'number' ? k.kernelTimeMs : 0;
  a.n += 1;
  agg.set(k.name, a);
}
const total = [...agg.values()].reduce((s, a) => s + a.ms, 0);
console.log(
  `backend ${tf.getBackend()}: wall ${wall.toFixed(0)} ms (profiled), kernels ${total.toFixed(0)} ms over ${prof.kernels.length} calls`,
);
for (const [name, a] of [...agg.entries()].sort((x, y) => y[1].ms - x[1].ms).slice(0, Number(values.top))) {
  console.log(
    `${name.padEnd(24)} ${a.ms.toFixed(1).padStart(8)} ms ${((100 * a.ms) / total).toFixed(1).padStart(5)}%  ${String(a.n).padStart(5)} calls`,
  );
}
