/**
 * Kernel-by-kernel profile of the reference training step on one backend:
 *   npx tsx packages/backend-native/bench/profile.ts [native|cpu|wasm] [--batch N] [--unfused] [--shapes] [--top N]
 * Prints ms per step and each kernel's share (tf.profile times every kernel call). The step is
 * core's op sequence (fused kernels where the backend has them); --unfused: plain ops only.
 */
import { PerformanceObserver } from 'node:perf_hooks';
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { cpuKernelCalls, poolStats, register } from '../src/index.js';
import { makeRefStep, REF_CONFIG } from './ref-model.js';

const args = process.argv.slice(2);
const backend = args.find((a) => !a.startsWith('--') && !/^\d+$/.test(a)) ?? 'native';
const bi = args.indexOf('--batch');
const batch = bi >= 0 ? Number(args[bi + 1]) : REF_CONFIG.batch;
if (backend === 'native') await register(tf);
if (!(await tf.setBackend(backend))) throw new Error(`backend ${backend} failed`);
tf.enableProdMode();
const step = makeRefStep(tf, { ...REF_CONFIG, batch, fused: !args.includes('--unfused') });
for (let i = 0; i < 3; i++) step.step();
const gcKinds = new Map<string, { n: number; ms: number }>();
let gcMs = 0;
let gcs = 0;
const obs = new PerformanceObserver((list) => {
  for (const e of list.getEntries()) {
    const kind = String((e as unknown as { detail?: { kind?: number } }).detail?.kind ?? '?');
    const g = gcKinds.get(kind) ?? { n: 0, ms: 0 };
    g.n++;
    g.ms += e.duration;
    gcKinds.set(kind, g);
    gcMs += e.duration;
    gcs++;
  }
});
obs.observe({ entryTypes: ['gc'] });
const before = poolStats(tf);
const cpuBefore = await cpuKernelCalls();
const n = backend === 'cpu' ? 1 : 8;
const times: number[] = [];
for (let i = 0; i < n; i++) {
  const t0 = performance.now();
  step.step();
  times.push(performance.now() - t0);
}
await new Promise((r) => setTimeout(r, 10));
obs.disconnect();
times.sort((a, b) => a - b);
const msPerStep = times[Math.floor(n / 2)];
const after = poolStats(tf);
if (before && after) {
  const per = (k: 'hits' | 'misses' | 'foreignWrites' | 'foreignBytes' | 'tainted' | 'dropped') =>
    ((after[k] - before[k]) / n).toFixed(0);
  console.log(
    `pool per step: hits ${per('hits')} misses ${per('misses')} tainted ${per('tainted')} dropped ${per('dropped')}; foreign arrays ${per('foreignWrites')} (${(Number(per('foreignBytes')) / 1e6).toFixed(1)} MB); idle ${(after.idleBytes / 1e6).toFixed(0)} MB, peak live ${(after.peakLiveBytes / 1e6).toFixed(0)} MB; RSS ${(process.memoryUsage().rss / 1e6).toFixed(0)} MB`,
  );
}
const cpuAfter = await cpuKernelCalls();
const cpuPer = Object.entries(cpuAfter)
  .map(([k, v]) => [k, (v - (cpuBefore[k] ?? 0)) / n] as const)
  .filter(([, v]) => v > 0)
  .sort((a, b) => b[1] - a[1]);
console.log(`cpu (JS) kernel calls per step: ${cpuPer.map(([k, v]) => `${k} ${v}`).join(', ') || 'none'}`);
console.log(
  'GC by kind (1 minor, 2 major, 4 incremental, 8 weakcb):',
  JSON.stringify(Object.fromEntries([...gcKinds].map(([k, v]) => [k, { n: v.n, ms: Math.round(v.ms) }]))),
);
console.log(
  `steps (ms): min ${times[0].toFixed(1)} median ${msPerStep.toFixed(1)} max ${times[n - 1].toFixed(1)}; GC ${(gcMs / n).toFixed(1)} ms/step in ${(gcs / n).toFixed(1)} collections/step`,
);
const prof = await tf.profile(() => {
  step.step();
});
const by = new Map<string, { ms: number; calls: number }>();
const withShapes = args.includes('--shapes');
for (const k of prof.kernels) {
  const key = withShapes ? `${k.name} ${k.inputShapes.map((s) => `[${s}]`).join(' ')}` : k.name;
  const e = by.get(key) ?? { ms: 0, calls: 0 };
  e.ms += Number(k.kernelTimeMs);
  e.calls++;
  by.set(key, e);
}
const total = [...by.values()].reduce((s, e) => s + e.ms, 0);
const calls = [...by.values()].reduce((s, e) => s + e.calls, 0);
console.log(
  `${backend}: ${msPerStep.toFixed(1)} ms/step (batch ${batch}); profiled step: kernels ${total.toFixed(1)} ms in ${calls} calls`,
);
const top = Number(args[args.indexOf('--top') + 1]) || 1000;
for (const [name, e] of [...by.entries()]
  .sort((a, b) => b[1].ms - a[1].ms)
  .slice(0, args.includes('--top') ? top : undefined)) {
  console.log(
    `${name.padEnd(withShapes ? 60 : 22)} ${e.ms.toFixed(2).padStart(9)} ms ${((100 * e.ms) / total).toFixed(1).padStart(5)}%  ${String(e.calls).padStart(5)} calls`,
  );
}
step.dispose();
