/**
 * `npm run bench:decode [-- --backend native --batch 10,100 --lengths 16,128,256,512 --steps 30]`:
 * the wall time of one cached decoding step of the 4-layer, width-128 TinyLm (the Countdown and
 * ProsQA references' size) after a prompt of each length, per batch size. A decoding step's cost
 * grows with the cache; this is what the cache's blocks (src/kv-cache.ts) are measured by.
 * Random weights: only the time is of interest. Prints ms per step, or one JSON line with --json.
 */
import { parseArgs } from 'node:util';
import * as tf from '@tensorflow/tfjs-core';
import {
  disposeCache,
  initBackend,
  Rng,
  tidy,
  TinyLm,
  type BackendCandidate,
  type KvCache,
  type LmOutput,
} from '@telepath/core';

const HELP = `Usage: npm run bench:decode -- [--backend NAME] [--batch B,B,...] [--lengths S,S,...] [--steps N] [--json]
  --backend  node-gpu | node | native | wasm | cpu (default: fastest available)
  --batch    batch sizes (default 10,100)
  --lengths  prompt lengths the steps start after (default 16,128,256,512; at most 600)
  --steps    timed steps per setting, after 3 untimed ones (default 30); each batch size first
             runs its first length once untimed
  --json     one JSON line {"backend", "rows": [{"batch", "length", "msPerStep"}]}`;

const { values } = parseArgs({
  options: {
    backend: { type: 'string' },
    batch: { type: 'string', default: '10,100' },
    lengths: { type: 'string', default: '16,128,256,512' },
    steps: { type: 'string', default: '30' },
    json: { type: 'boolean', default: false },
    help: { type: 'boolean', short: 'h', default: false },
  },
});
if (values.help) {
  console.log(HELP);
  process.exit(0);
}
const integers = (flag: string, raw: string, max = Infinity) => {
  const list = raw.split(',').map(Number);
  if (list.some((n) => !Number.isInteger(n) || n < 1 || n > max))
    throw new Error(
      `bench:decode ${flag}: expected integers 1..${max} separated by commas, got ${JSON.stringify(raw)}`,
    );
  return list;
};
const batches = integers('--batch', values.batch);
const lengths = integers('--lengths', values.lengths, 600);
const [steps] = integers('--steps', values.steps);

const info = await initBackend(values.backend as BackendCandidate | undefined, { quiet: true });
const lm = new TinyLm({ contextLength: 640, layers: 4, heads: 4, width: 128, vocabSize: 35 }, new Rng(0));

/** Frees a forward's outputs but its cache (newKv's tensors may be blocks of it). */
function freeOutputs(out: LmOutput): void {
  const cached = new Set<tf.Tensor>(out.cache.layers.flat().flatMap((b) => [b.k, b.v]));
  tf.dispose([out.logits, ...out.hidden, ...out.newKv.flatMap((kv) => [kv.k, kv.v])].filter((t) => !cached.has(t)));
}

async function msPerStep(B: number, S: number): Promise<number> {
  const prompt = tf.zeros([B, S], 'int32') as tf.Tensor2D;
  const first = lm.forward(lm.embed(prompt));
  prompt.dispose();
  freeOutputs(first);
  let cache: KvCache = first.cache;
  let start = 0;
  for (let s = 0; s < steps + 3; s++) {
    if (s === 3) start = performance.now();
    const out = tidy(() => lm.forward(lm.embed(tf.zeros([B, 1], 'int32') as tf.Tensor2D), { cache }));
    await out.logits.data();
    disposeCache(cache);
    cache = out.cache;
    freeOutputs(out);
  }
  const ms = (performance.now() - start) / steps;
  disposeCache(cache);
  return ms;
}

const rows: { batch: number; length: number; msPerStep: number }[] = [];
for (const B of batches) {
  await msPerStep(B, lengths[0]); // untimed: the first setting of a batch size pays for the allocator's warm-up
  for (const S of lengths) rows.push({ batch: B, length: S, msPerStep: await msPerStep(B, S) });
}
lm.dispose();
if (values.json) console.log(JSON.stringify({ backend: info.backend, rows }));
else {
  console.log(`one cached decoding step, 4 layers × width 128, ${info.backend} backend (ms)`);
  console.log(['batch', ...lengths.map((S) => `S=${S}`)].map((c) => c.padStart(9)).join(''));
  for (const B of batches)
    console.log(
      [String(B), ...rows.filter((r) => r.batch === B).map((r) => r.msPerStep.toFixed(2))]
        .map((c) => c.padStart(9))
        .join(''),
    );
}
