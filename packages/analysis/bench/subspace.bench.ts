/**
 * Time of the full subspace analysis at the target size: 16 slots × 2,000 vectors ×
 * width 256 (synthetic slots with shared and private subspaces). Not a test: a measurement.
 *   npx tsx packages/analysis/bench/subspace.bench.ts [--slots 16 --rows 2000 --width 256 --backend wasm --repeats 2 --no-cka]
 */
import { currentBackend, initBackend, type BackendCandidate } from '@telepath/core';
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { analyzeTrace } from '../src/index.js';
import { syntheticSlots } from '../src/testing.js';

const { values } = parseArgs({
  options: {
    slots: { type: 'string', default: '16' },
    rows: { type: 'string', default: '2000' },
    width: { type: 'string', default: '256' },
    backend: { type: 'string', default: 'wasm' },
    repeats: { type: 'string', default: '2' },
    'no-cka': { type: 'boolean', default: false },
  },
});
const S = Number(values.slots);
const N = Number(values.rows);
const C = Number(values.width);
await initBackend([values.backend as BackendCandidate], { quiet: true });
let t = performance.now();
const trace = syntheticSlots({
  slots: S,
  rows: N,
  width: C,
  sharedRank: 16,
  privateRank: 8,
  noise: 0.1,
  separation: 2,
  sharedCorrelation: 0.5,
  seed: 1,
});
console.log(
  `data: ${S} slots × ${N} × ${C} generated in ${((performance.now() - t) / 1000).toFixed(1)} s; backend ${currentBackend()?.backend}`,
);
for (let r = 0; r < Number(values.repeats); r++) {
  t = performance.now();
  const a = await analyzeTrace(trace, { cka: !values['no-cka'] });
  const total = performance.now() - t;
  const gflop = (2 * N * C * C * (values['no-cka'] ? S : (S * (S + 1)) / 2)) / 1e9;
  const stages = Object.entries(a.timings)
    .map(([k, v]) => `${k} ${(v / 1000).toFixed(2)}`)
    .join(', ');
  console.log(
    `run ${r + 1}: ${(total / 1000).toFixed(2)} s (${stages}); products ${gflop.toFixed(1)} GFLOP at ${(gflop / (a.timings.products / 1000)).toFixed(1)} GFLOP/s; load ${loadavg()[0].toFixed(1)}`,
  );
  console.log(
    `  H_off ${a.summary.hOff.toFixed(3)}, mean k ${a.summary.meanK}, sil cos ${a.summary.silhouetteCosine.toFixed(3)}, euc ${a.summary.silhouetteEuclidean.toFixed(3)} on ${a.summary.silhouetteEuclideanUsed}, CKA off ${a.summary.ckaOff.toFixed(3)}`,
  );
}
