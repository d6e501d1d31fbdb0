/**
 * `npx tsx packages/colar/bench/step.bench.ts [--steps N]`:
 * ms per SFT step (forward, backward, Adam; one compression speed, drawn once) of a 4-layer, width-128
 * rotary LM (context 640) on batches of 16 examples with 100–300-token prompts and 4-step chains,
 * as a ProsQA arm would train. Prints one JSON line
 * (median ms per step after 2 warm-up steps). To compare two versions of the code, run each in
 * its own process, alternating, several times: a shared 2-core VM varies by 10–40 %.
 */
import { parseArgs } from 'node:util';
import * as tf from '@tensorflow/tfjs-core';
import { benchExamples, exampleTexts, initBackend, medianStepMs, Rng, TinyLm, Tokenizer } from '@telepath/core';
import { colar } from '../src/index.js';

const { values } = parseArgs({
  options: {
    steps: { type: 'string', default: '10' },
  },
});
const steps = Number(values.steps);
const ROWS = 16;

await initBackend('native', { quiet: true });
const pool = benchExamples(256, [100, 300], 4);
const rng = new Rng(1); // draws the batches
const tokenizer = Tokenizer.build(exampleTexts(pool));
const lm = new TinyLm(
  { vocabSize: tokenizer.size, contextLength: 640, layers: 4, heads: 4, width: 128, positions: 'rotary' },
  new Rng(0),
);
const s = colar.init({ lm, tokenizer, rng: new Rng(0), backend: 'native' }, { ...colar.defaults });
const vars = [...s.trainable('sft').values()];
const optimizer = tf.train.adam(1e-3);
const at = { step: 0, phase: 'sft', rng: new Rng(2) };

const ms = await medianStepMs(async () => {
  const batch = Array.from({ length: ROWS }, () => pool[rng.int(pool.length)]);
  const cost = optimizer.minimize(() => colar.loss(s, batch, at), true, vars);
  await cost!.data();
  cost!.dispose();
}, steps);
console.log(JSON.stringify({ method: 'colar', steps, msPerStep: ms }));
