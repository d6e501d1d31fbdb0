/**
 * `npx tsx packages/coprocessor/bench/long-prompt.bench.ts [--steps N] [--variant liu|h1|h2]`:
 * ms per training step (forward, backward, Adam) at N_L 4 of a 4-layer, width-128 rotary Base
 * (context 640) on batches of 16 examples whose prompts are 100–300 tokens, as a ProsQA arm would
 * train (`step.bench.ts` times every variant and N_L on short toy prompts). Prints one JSON line
 * (median ms per step after 2 warm-up steps). To compare two versions of the code, run each in
 * its own process, alternating, several times: a shared 2-core VM varies by 10–40 %.
 */
import { parseArgs } from 'node:util';
import * as tf from '@tensorflow/tfjs-core';
import { benchExamples, exampleTexts, initBackend, medianStepMs, Rng, TinyLm, Tokenizer } from '@telepath/core';
import { coprocessor, type CoprocessorVariant } from '../src/index.js';

const { values } = parseArgs({
  options: {
    steps: { type: 'string', default: '10' },
    variant: { type: 'string', default: 'h2' },
  },
});
const variant = values.variant as CoprocessorVariant;
const steps = Number(values.steps);
const ROWS = 16;

await initBackend('native', { quiet: true });
const pool = benchExamples(256, [100, 300], 0);
const rng = new Rng(1); // draws the batches
const tokenizer = Tokenizer.build(exampleTexts(pool));
const lm = new TinyLm(
  { vocabSize: tokenizer.size, contextLength: 640, layers: 4, heads: 4, width: 128, positions: 'rotary' },
  new Rng(0),
);
const s = coprocessor.init(
  { lm, tokenizer, rng: new Rng(0), backend: 'native' },
  { ...coprocessor.defaults, variant, latentTokens: 4 },
);
const vars = [...s.trainable('sft').values()];
const optimizer = tf.train.adam(1e-3);
const at = { step: 0, phase: 'sft', rng: new Rng(2) };

const ms = await medianStepMs(async () => {
  const batch = Array.from({ length: ROWS }, () => pool[rng.int(pool.length)]);
  const cost = optimizer.minimize(() => coprocessor.loss(s, batch, at), true, vars);
  await cost!.data();
  cost!.dispose();
}, steps);
console.log(JSON.stringify({ variant, steps, msPerStep: ms }));
