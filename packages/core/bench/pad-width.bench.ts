/**
 * `npx tsx packages/core/bench/pad-width.bench.ts [--steps N] [--width exact|padded]`:
 * ms per training step of a 4-layer, width-128 rotary LM (context 640) on batches of 16 rows of
 * 200–450 tokens cut into 4 length groups, as the ProsQA chain references train, with each
 * group padded to its longest row (`exact`) or to core's `paddedWidth` (`padded`, what
 * packSegments does within a context length). Run each width in its own process,
 * alternating, several times: the buffer pool's reuse is what differs, and a shared 2-core VM
 * varies by 10–40 %. Prints one JSON line (median ms per step after 2 warm-up steps).
 */
import { parseArgs } from 'node:util';
import * as tf from '@tensorflow/tfjs-core';
import { initBackend, maskedCrossEntropy, paddedWidth, Rng, TinyLm } from '@telepath/core';

const { values } = parseArgs({
  options: {
    steps: { type: 'string', default: '10' },
    width: { type: 'string', default: 'padded' },
  },
});
if (values.width !== 'exact' && values.width !== 'padded')
  throw new Error(`--width: exact or padded, got ${values.width}`);
const steps = Number(values.steps);
const CONTEXT = 640;
const [ROWS, GROUPS] = [16, 4];

await initBackend('native', { quiet: true });
const lm = new TinyLm(
  { vocabSize: 120, contextLength: CONTEXT, layers: 4, heads: 4, width: 128, positions: 'rotary' },
  new Rng(0),
);
const vars = [...lm.params.values()];
const optimizer = tf.train.adam(1e-3);
const rng = new Rng(1);

/** One Adam step on rows of these lengths; its ms. */
async function step(lengths: number[]): Promise<number> {
  const sorted = [...lengths].sort((a, b) => a - b);
  const per = ROWS / GROUPS;
  const t0 = performance.now();
  const cost = optimizer.minimize(
    () => {
      const losses = Array.from({ length: GROUPS }, (_, g) => {
        const rows = sorted.slice(g * per, (g + 1) * per);
        const longest = Math.max(...rows);
        const T = values.width === 'exact' ? longest : paddedWidth(longest, CONTEXT);
        const ids = new Int32Array(per * T);
        const mask = new Float32Array(per * T);
        rows.forEach((L, b) => {
          for (let t = 0; t < L; t++) [ids[b * T + t], mask[b * T + t]] = [1 + ((b * 7 + t * 13) % 119), 1];
        });
        const idT = tf.tensor2d(ids, [per, T], 'int32'); // [rows, T]
        return maskedCrossEntropy(lm.forward(lm.embed(idT)).logits, idT, tf.tensor2d(mask, [per, T]));
      });
      return tf.div(tf.addN(losses), GROUPS) as tf.Scalar;
    },
    true,
    vars,
  );
  await cost!.data();
  cost!.dispose();
  return performance.now() - t0;
}

const times: number[] = [];
for (let i = 0; i < steps + 2; i++) times.push(await step(Array.from({ length: ROWS }, () => 200 + rng.int(250))));
const timed = times.slice(2).sort((a, b) => a - b);
console.log(JSON.stringify({ width: values.width, steps, msPerStep: Math.round(timed[Math.floor(timed.length / 2)]) }));
