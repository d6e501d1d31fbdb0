/**
 * Benchmark of the native backend (not a test):
 *   npx tsx packages/backend-native/bench/native.bench.ts [--json] [--rounds N] [--steps N]
 *       [--no-torch] [--no-unfused] [--core] [--wasm] [--single] [--shape ref|gpt2] [--batch N]
 * 1. matMul n×n at 256/512/1024 on `native` (tf.matMul + dataSync) next to a plain OpenBLAS
 *    sgemm with its own threads (same thread count), alternating, best of several runs.
 * 2. The reference training step (bench/ref-model.ts, core's op sequence: the fused GELU,
 *    LayerNorm, attention-softmax and AdamW kernels on native), the same step in plain ops only
 *    (core with TELEPATH_FUSED=0; --no-unfused skips it), and — when /usr/bin/python3 has
 *    torch — the same model and optimiser in PyTorch
 *    (bench/torch_ref.py, a reference, not product) at its two thread settings (2 torch threads
 *    with OPENBLAS_NUM_THREADS=1; 1 torch thread with OPENBLAS_NUM_THREADS=2), all alternating
 *    in rounds so machine load hits them alike. PyTorch counts at its faster setting.
 * --shape gpt2 times GPT-2 small's shape instead of the reference model (ref-model.ts GPT2_SHAPE:
 * 12 layers, 12 heads, width 768, vocabulary 50,257, a 1,024-row position table, T = 256, random
 * weights; batch 4 unless --batch), native (fused) against PyTorch only, 1 round of 2 steps unless
 * --rounds / --steps say otherwise.
 * --core also runs core's own bench (`bench:core --backend native`) in a child process; --wasm
 * adds its wasm run. --single compares one thread against one thread (native pool of 1; PyTorch
 * with 1 torch thread and OPENBLAS_NUM_THREADS=1), less sensitive to a busy machine. With --json: one line {nativeMsPerStep, torchMsPerStep, ratioVsTorch, …}
 * where ratioVsTorch = native tokens/s ÷ torch tokens/s (> 1: native faster); nativeMsPerStep is core's
 * op sequence (fused), nativeUnfusedMsPerStep the plain-op one.
 */
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import * as tf from '@tensorflow/tfjs';
import { loadAddon } from '../src/addon.js';
import { nativeStatus, poolStats, register } from '../src/index.js';
import { GPT2_SHAPE, makeRefStep, REF_CONFIG, type RefConfig } from './ref-model.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const { values: opt } = parseArgs({
  options: {
    json: { type: 'boolean', default: false },
    rounds: { type: 'string', default: '3' },
    steps: { type: 'string', default: '6' },
    'no-torch': { type: 'boolean', default: false },
    'no-unfused': { type: 'boolean', default: false },
    core: { type: 'boolean', default: false },
    wasm: { type: 'boolean', default: false },
    single: { type: 'boolean', default: false },
    shape: { type: 'string', default: 'ref' },
    batch: { type: 'string' },
  },
});
if (opt.shape !== 'ref' && opt.shape !== 'gpt2') {
  console.error(`--shape takes ref or gpt2, got ${JSON.stringify(opt.shape)}`);
  process.exit(2);
}
const GPT2 = opt.shape === 'gpt2';
const given = (flag: string) => process.argv.some((a) => a === flag || a.startsWith(`${flag}=`));
const ROUNDS = GPT2 && !given('--rounds') ? 1 : Number(opt.rounds);
const STEPS = GPT2 && !given('--steps') ? 2 : Number(opt.steps);
const SHAPE: RefConfig = { ...(GPT2 ? GPT2_SHAPE : REF_CONFIG), ...(opt.batch ? { batch: Number(opt.batch) } : {}) };
const log = (msg: string) => {
  if (!opt.json) console.error(msg);
};
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const status = nativeStatus();
if (!status.available) {
  console.error(`native backend unavailable: ${status.reason}`);
  process.exit(1);
}
await register(tf, opt.single ? { threads: 1 } : {});
await tf.setBackend('native');
const addon = (loadAddon() as { ok: true; addon: import('../src/addon.js').NativeAddon }).addon;
const info = addon.info();
const threads = info.threads;
log(
  `native: ${threads} threads, ${info.isa}, ${info.blasConfig}; ${availableParallelism()} CPUs; load average ${loadavg()[0].toFixed(1)}`,
);

// ---- 1. matMul ----
// Blocks of native runs and OpenBLAS runs alternate, with a pause between them: OpenBLAS's own
// threads keep spinning for a while after each call and would steal a core from the next block.
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
async function matmulGflops(n: number): Promise<{ native: number; openblas: number }> {
  const a = tf.randomNormal([n, n], 0, 1, 'float32', 1);
  const b = tf.randomNormal([n, n], 0, 1, 'float32', 2);
  const av = a.dataSync() as Float32Array;
  const bv = b.dataSync() as Float32Array;
  const out = new Float32Array(n * n);
  const reps = n >= 1024 ? 4 : n >= 512 ? 8 : 25;
  let nat = Infinity;
  let ob = Infinity;
  for (let w = 0; w < 3; w++) tf.matMul(a, b).dispose();
  for (let block = 0; block < 3; block++) {
    for (let r = 0; r < reps; r++) {
      const t0 = performance.now();
      const c = tf.matMul(a, b);
      c.dataSync();
      nat = Math.min(nat, performance.now() - t0);
      c.dispose();
    }
    await pause(150);
    for (let r = 0; r < reps; r++) {
      const t0 = performance.now();
      addon.sgemmOpenblas(av, bv, out, n, n, n, threads);
      ob = Math.min(ob, performance.now() - t0);
    }
    await pause(150);
  }
  tf.dispose([a, b]);
  const gf = (ms: number) => (2 * n ** 3) / (ms * 1e6);
  return { native: gf(nat), openblas: gf(ob) };
}
const matmulGf: Record<string, number> = {};
const openblasGf: Record<string, number> = {};
for (const n of [256, 512, 1024]) {
  const r = await matmulGflops(n);
  matmulGf[n] = Math.round(r.native);
  openblasGf[n] = Math.round(r.openblas);
  log(
    `matMul ${n}: native ${r.native.toFixed(0)} GFLOP/s, OpenBLAS ${r.openblas.toFixed(0)} GFLOP/s (${((100 * r.native) / r.openblas).toFixed(0)}%)`,
  );
}

// ---- 2. training step ----
interface TorchWorker {
  label: string;
  run(n: number): Promise<number[]>;
  close(): void;
}

async function startTorch(torchThreads: number, blasThreads: number): Promise<TorchWorker | undefined> {
  const py = '/usr/bin/python3';
  if (!existsSync(py) || spawnSync(py, ['-c', 'import torch'], { stdio: 'ignore' }).status !== 0) return undefined;
  const shapeArgs = [
    '--vocab',
    SHAPE.vocab,
    '--layers',
    SHAPE.layers,
    '--heads',
    SHAPE.heads,
    '--width',
    SHAPE.width,
    '--positions',
    SHAPE.positions,
    '--table',
    SHAPE.table ?? SHAPE.positions,
    '--batch',
    SHAPE.batch,
  ].map(String);
  const child: ChildProcessWithoutNullStreams = spawn(
    py,
    [join(HERE, 'torch_ref.py'), '--threads', String(torchThreads), ...shapeArgs],
    {
      env: { ...process.env, OPENBLAS_NUM_THREADS: String(blasThreads), OMP_NUM_THREADS: String(torchThreads) },
    },
  );
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const next = async () => JSON.parse((await lines.next()).value as string);
  await next(); // ready
  return {
    label: `torch ${torchThreads} thr / OpenBLAS ${blasThreads}`,
    async run(n) {
      child.stdin.write(`run ${n}\n`);
      return (await next()).ms as number[];
    },
    close() {
      child.stdin.end('quit\n');
    },
  };
}

const variants: { label: string; run: (n: number) => Promise<number[]> | number[]; times: number[]; loss?: number }[] =
  [];
const timeSteps = (step: () => number) => (n: number) => {
  const ms: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    step();
    ms.push(performance.now() - t0);
  }
  return ms;
};
const fused = makeRefStep(tf, SHAPE);
variants.push({ label: 'native (core op sequence, fused)', run: timeSteps(() => fused.step()), times: [] });
const unfused = !opt['no-unfused'] && !GPT2;
if (unfused) {
  const plain = makeRefStep(tf, { ...SHAPE, fused: false });
  variants.push({ label: 'native, plain ops (TELEPATH_FUSED=0)', run: timeSteps(() => plain.step()), times: [] });
}
const torch: TorchWorker[] = [];
if (!opt['no-torch']) {
  const settings = opt.single
    ? [[1, 1]]
    : [
        [2, 1],
        [1, 2],
      ];
  for (const [t, b] of settings) {
    const w = await startTorch(t, b);
    if (w) torch.push(w);
  }
  if (torch.length === 0)
    log(
      'PyTorch reference skipped: /usr/bin/python3 with torch not found (Debian: python3-torch libopenblas0-pthread)',
    );
}
for (const w of torch) variants.push({ label: w.label, run: (n) => w.run(n), times: [] });

for (const v of variants) await v.run(2); // warm-up
for (let r = 0; r < ROUNDS; r++) {
  const round: string[] = [];
  for (const v of variants) {
    await pause(300); // let the previous variant's spinning threads (OpenMP, OpenBLAS) go to sleep
    const ms = await v.run(STEPS);
    v.times.push(...ms);
    round.push(`${v.label} ${median(ms).toFixed(0)} ms`);
  }
  log(`round ${r + 1}/${ROUNDS} (medians of this round): ${round.join(' · ')}`);
}
torch.forEach((w) => w.close());

// ---- 3. core's own bench (optional) ----
function coreBench(backend: string): number | undefined {
  let dir = HERE;
  while (dir !== dirname(dir) && !existsSync(join(dir, 'packages', 'core', 'bench', 'train-step.bench.ts')))
    dir = dirname(dir);
  const script = join(dir, 'packages', 'core', 'bench', 'train-step.bench.ts');
  if (!existsSync(script)) return undefined;
  const r = spawnSync(
    process.execPath,
    [...process.execArgv, script, '--backend', backend, '--json', '--steps', String(STEPS)],
    { encoding: 'utf8', cwd: dir },
  );
  const line = (r.stdout ?? '').trim().split('\n').pop();
  try {
    return (JSON.parse(line ?? '') as { msPerStep?: number }).msPerStep;
  } catch {
    return undefined;
  }
}
const coreNative = opt.core ? coreBench('native') : undefined;
const coreWasm = opt.wasm ? coreBench('wasm') : undefined;

const nativeMs = median(variants[0].times);
const plainMs = unfused ? median(variants[1].times) : undefined;
const torchMs = torch.length
  ? Math.min(...variants.slice(variants.length - torch.length).map((v) => median(v.times)))
  : undefined;
const tokens = SHAPE.batch * SHAPE.positions;
const result = {
  nativeMsPerStep: Math.round(nativeMs),
  nativeUnfusedMsPerStep: plainMs === undefined ? null : Math.round(plainMs),
  torchMsPerStep: torchMs === undefined ? null : Math.round(torchMs),
  ratioVsTorch: torchMs === undefined ? null : Number((torchMs / nativeMs).toFixed(3)),
  ratioUnfusedVsTorch: torchMs === undefined || plainMs === undefined ? null : Number((torchMs / plainMs).toFixed(3)),
  coreBenchNativeMsPerStep: coreNative === undefined ? null : Math.round(coreNative),
  coreBenchWasmMsPerStep: coreWasm === undefined ? null : Math.round(coreWasm),
  matmulGflops: matmulGf,
  openblasGflops: openblasGf,
  threads,
  loadAverage: Number(loadavg()[0].toFixed(1)),
  peakPoolMB: Math.round((poolStats(tf)?.peakLiveBytes ?? 0) / 1e6),
};
if (opt.json) {
  console.log(JSON.stringify(result));
} else {
  console.log(
    `\n${GPT2 ? 'GPT-2 small shape' : 'reference'} step: vocab ${SHAPE.vocab}, ${SHAPE.layers} layers, ${SHAPE.heads} heads, width ${SHAPE.width}, ${SHAPE.positions} positions${SHAPE.table ? ` (table ${SHAPE.table})` : ''}, batch ${SHAPE.batch}, AdamW + clipping`,
  );
  console.log(`${'variant'.padEnd(40)} ${'ms/step'.padStart(8)} ${'tokens/s'.padStart(9)}`);
  for (const v of variants) {
    const ms = median(v.times);
    console.log(
      `${v.label.padEnd(40)} ${ms.toFixed(0).padStart(8)} ${Math.round((tokens * 1000) / ms)
        .toLocaleString('en')
        .padStart(9)}${GPT2 ? `  (${(ms / 1000).toFixed(1)} s/step)` : ''}`,
    );
  }
  if (coreNative !== undefined)
    console.log(`${'core bench:core --backend native'.padEnd(40)} ${coreNative.toFixed(0).padStart(8)}`);
  if (coreWasm !== undefined)
    console.log(`${'core bench:core --backend wasm'.padEnd(40)} ${coreWasm.toFixed(0).padStart(8)}`);
  if (torchMs !== undefined)
    console.log(
      `ratio vs PyTorch (tokens/s): native ${result.ratioVsTorch}${plainMs === undefined ? '' : `, plain ops ${result.ratioUnfusedVsTorch}`}`,
    );
  console.log(`matMul GFLOP/s native ${JSON.stringify(matmulGf)} vs OpenBLAS ${JSON.stringify(openblasGf)}`);
}
process.exit(0);
