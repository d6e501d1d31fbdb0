/**
 * Memory over a long run (not a test): `npx tsx packages/backend-native/bench/memory.ts [steps] [--unfused] [--batch N]`
 * trains the reference step (core's op sequence; --unfused: plain ops only) on `native` and
 * prints tensor count, pool counters and RSS every tenth of the run: the tensor count must stay
 * constant and RSS flat after the first steps.
 */
import * as tf from '@tensorflow/tfjs';
import { poolStats, register } from '../src/index.js';
import { makeRefStep, REF_CONFIG } from './ref-model.js';

const args = process.argv.slice(2);
const steps = Number(args.find((a) => /^\d+$/.test(a)) ?? 200);
const bi = args.indexOf('--batch');
await tf.setBackend(await register(tf));
const model = makeRefStep(tf, {
  ...REF_CONFIG,
  batch: bi >= 0 ? Number(args[bi + 1]) : REF_CONFIG.batch,
  fused: !args.includes('--unfused'),
});
const mb = (b: number) => (b / 1e6).toFixed(0);
for (let i = 1; i <= steps; i++) {
  const loss = model.step();
  if (i === 1 || i % Math.max(1, Math.floor(steps / 10)) === 0) {
    const p = poolStats(tf)!;
    console.log(
      `step ${String(i).padStart(4)}: loss ${loss.toFixed(3)} tensors ${tf.memory().numTensors} RSS ${mb(process.memoryUsage().rss)} MB pool idle ${mb(p.idleBytes)} MB live ${mb(p.liveBytes)} MB misses ${p.misses}`,
    );
  }
}
model.dispose();
