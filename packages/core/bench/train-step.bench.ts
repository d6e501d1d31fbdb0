/**
 * `npm run bench:core [-- --backend NAME] [--steps N] [--json]`: trains the reference model —
 * vocabulary 64, 4 layers, 4 heads, width 128, 64 positions, batch 32, AdamW — through core's own
 * training loop on every available backend (each in a fresh child process, so heaps and peak RSS
 * are its own), and prints ms/step (median of the timed steps, after warm-up), tokens/s and peak
 * RSS. With --json: one line per backend {"backend","msPerStep","tokensPerSec","params",...}.
 * A benchmark, not a test: numbers on a shared 2-core VM vary by 10–40 %.
 */
import { execFileSync } from 'node:child_process';
import { parseArgs } from 'node:util';
import {
  initBackend,
  progressionLoss,
  Rng,
  TinyLm,
  train,
  type BackendCandidate,
  type PositionKind,
} from '@telepath/core';

const REFERENCE = { vocabSize: 64, contextLength: 64, layers: 4, heads: 4, width: 128 };
const BATCH = 32;
const T = 64;
const HELP = `Usage: npm run bench:core -- [--backend NAME] [--positions KINDS] [--steps N] [--warmup N] [--json]
  --backend NAME  one of native, wasm, cpu, webgpu, node, node-gpu (default: native, wasm, cpu — those that start)
  --steps N       timed steps after warm-up (default 10; cpu defaults to 3, it takes ≈20 s a step)
  --positions K   comma list of lm.positions to time, e.g. learned,rotary (default learned)
  --warmup N      untimed steps first (default 2)
  --json          one JSON line per backend`;

interface BenchResult {
  backend: string;
  adapter: unknown;
  positions: string;
  msPerStep: number;
  tokensPerSec: number;
  params: number;
  peakRssMb: number;
  steps: number;
  firstLoss: number;
  lastLoss: number;
}

const { values } = parseArgs({
  options: {
    backend: { type: 'string' },
    positions: { type: 'string', default: 'learned' },
    steps: { type: 'string' },
    warmup: { type: 'string', default: '2' },
    json: { type: 'boolean', default: false },
    child: { type: 'boolean', default: false },
    help: { type: 'boolean', short: 'h', default: false },
  },
});
if (values.help) {
  console.log(HELP);
  process.exit(0);
}

if (values.child) {
  console.log(
    JSON.stringify(
      await runOne(
        values.backend as BackendCandidate,
        values.positions as PositionKind,
        Number(values.steps),
        Number(values.warmup),
      ),
    ),
  );
} else {
  const backends: BackendCandidate[] = values.backend
    ? [values.backend as BackendCandidate]
    : ['native', 'wasm', 'cpu'];
  const results: BenchResult[] = [];
  for (const [b, positions] of backends.flatMap((b) => values.positions!.split(',').map((p) => [b, p] as const))) {
    const steps = values.steps ?? (b === 'cpu' ? '3' : '10');
    try {
      const out = execFileSync(
        process.execPath,
        [
          ...process.execArgv,
          new URL(import.meta.url).pathname,
          '--child',
          '--backend',
          b,
          '--positions',
          positions,
          '--steps',
          steps,
          '--warmup',
          values.warmup!,
        ],
        { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] },
      );
      const r = JSON.parse(out.trim().split('\n').pop()!) as BenchResult;
      results.push(r);
      if (values.json) console.log(JSON.stringify(r));
      else console.error(`${b} (${positions} positions): ${r.msPerStep.toFixed(0)} ms/step`);
    } catch (e) {
      const msg =
        ((e as { stderr?: string }).stderr ?? String(e))
          .trim()
          .split('\n')
          .filter((l) => /Error|error/.test(l))[0] ?? 'failed';
      if (values.json) console.log(JSON.stringify({ backend: b, error: msg }));
      else console.error(`${b}: skipped (${msg})`);
    }
  }
  if (!values.json) printTable(results);
}

async function runOne(
  candidate: BackendCandidate,
  positions: PositionKind,
  steps: number,
  warmup: number,
): Promise<BenchResult> {
  const info = await initBackend(candidate, { quiet: true });
  const lm = new TinyLm({ ...REFERENCE, positions }, new Rng(0));
  const times: number[] = [];
  const res = await train({
    params: lm.params,
    rng: new Rng(1),
    config: {
      steps: warmup + steps,
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
    loss: (at) => progressionLoss(lm, at.rng, BATCH, T),
    onLog: (l) => times.push(l.ms),
  });
  const timed = times.slice(warmup).sort((a, b) => a - b);
  const ms = timed[Math.floor(timed.length / 2)];
  return {
    backend: info.backend,
    adapter: info.adapter ?? null,
    positions,
    msPerStep: ms,
    tokensPerSec: (BATCH * T * 1000) / ms,
    params: lm.size,
    peakRssMb: process.resourceUsage().maxRSS / 1024,
    steps,
    firstLoss: res.losses[0],
    lastLoss: res.losses[res.losses.length - 1],
  };
}

function printTable(rs: BenchResult[]): void {
  const rows = rs.map((r) => [
    r.backend,
    r.positions,
    r.msPerStep.toFixed(0),
    Math.round(r.tokensPerSec).toLocaleString('en'),
    r.peakRssMb.toFixed(0),
    String(r.steps),
    `${r.firstLoss.toFixed(2)}→${r.lastLoss.toFixed(2)}`,
  ]);
  const head = ['backend', 'positions', 'ms/step', 'tokens/s', 'peak RSS MB', 'timed steps', 'loss'];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const fmt = (r: string[]) => r.map((c, i) => c.padStart(widths[i])).join('  ');
  console.log(`reference model: ${JSON.stringify(REFERENCE)}, batch ${BATCH}, AdamW; params ${rs[0]?.params ?? '?'}`);
  console.log(fmt(head));
  for (const r of rows) console.log(fmt(r));
}
