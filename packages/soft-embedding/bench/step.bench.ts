/**
 * `npx tsx packages/soft-embedding/bench/step.bench.ts [--steps N] [--variant continuous-thought|soft-tokens] [--buckets K]`:
 * ms per training step (forward, backward, Adam) of a 4-layer, width-128 rotary LM (context 640)
 * on batches of 8 examples whose prompts are 100–300 tokens and whose chains are 4 steps, as a
 * ProsQA chain arm would train; continuous thought at stage 2 of N_L 4; `--buckets` the config's
 * lengthBuckets (default 1, one padded batch). Prints one JSON line
 * (median ms per step after 2 warm-up steps). To compare two versions of the code, run each in
 * its own process, alternating, several times: a shared 2-core VM varies by 10–40 %.
 */
import { parseArgs } from 'node:util';
import * as tf from '@tensorflow/tfjs-core';
import { benchExamples, exampleTexts, initBackend, medianStepMs, Rng, TinyLm, Tokenizer } from '@telepath/core';
import { softEmbedding, type SoftEmbeddingVariant } from '../src/index.js';

const { values } = parseArgs({
  options: {
    steps: { type: 'string', default: '10' },
    variant: { type: 'string', default: 'continuous-thought' },
    buckets: { type: 'string', default: '1' },
  },
});
const variant = values.variant as SoftEmbeddingVariant;
const steps = Number(values.steps);
const lengthBuckets = Number(values.buckets);
const ROWS = 8;

await initBackend('native', { quiet: true });
const pool = benchExamples(256, [100, 300], 4);
const rng = new Rng(1); // draws the batches
const tokenizer = Tokenizer.build(exampleTexts(pool));
const lm = new TinyLm(
  { vocabSize: tokenizer.size, contextLength: 640, layers: 4, heads: 4, width: 128, positions: 'rotary' },
  new Rng(0),
);
const s = softEmbedding.init(
  { lm, tokenizer, rng: new Rng(0), backend: 'native' },
  { ...softEmbedding.defaults, variant, latentTokens: 4, uniformProb: 0, lengthBuckets },
);
const phase = variant === 'soft-tokens' ? 'sft' : 'stage2'; // stage 2: two language steps replaced
const vars = [...s.trainable(phase).values()];
const optimizer = tf.train.adam(1e-3);
const at = { step: 0, phase, rng: new Rng(2) };

const ms = await medianStepMs(async () => {
  const batch = Array.from({ length: ROWS }, () => pool[rng.int(pool.length)]);
  const cost = optimizer.minimize(() => softEmbedding.loss(s, batch, at), true, vars);
  await cost!.data();
  cost!.dispose();
}, steps);
console.log(JSON.stringify({ variant, lengthBuckets, steps, msPerStep: ms }));
