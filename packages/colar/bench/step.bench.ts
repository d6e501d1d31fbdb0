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
import { exampleTexts, initBackend, Rng, TinyLm, Tokenizer, type Example } from '@telepath/core';
import { colar } from '../src/index.js';

const { values } = parseArgs({
  options: {
    steps: { type: 'string', default: '10' },
  },
});
const steps = Number(values.steps);
const ROWS = 16;

await initBackend('native', { quiet: true });
const rng = new Rng(1);
const LETTERS = 'abcdefghij';
const word = () => `w${LETTERS[rng.int(10)]}${LETTERS[rng.int(6)]}`; // 60 one-token words
const pool: Example[] = Array.from({ length: 256 }, (_, i) => ({
  id: `bench${i}`,
  question: Array.from({ length: 100 + rng.int(200) }, word).join(' '),
  steps: Array.from({ length: 4 }, () => Array.from({ length: 4 + rng.int(12) }, word).join(' ')),
  answer: word(),
}));
const tokenizer = Tokenizer.build(exampleTexts(pool));
const lm = new TinyLm(
  { vocabSize: tokenizer.size, contextLength: 640, layers: 4, heads: 4, width: 128, positions: 'rotary' },
  new Rng(0),
);
const s = colar.init({ lm, tokenizer, rng: new Rng(0), backend: 'native' }, { ...colar.defaults });
const vars = [...s.trainable('sft').values()];
const optimizer = tf.train.adam(1e-3);
const at = { step: 0, phase: 'sft', rng: new Rng(2) };

async function step(): Promise<number> {
  const batch = Array.from({ length: ROWS }, () => pool[rng.int(pool.length)]);
  const t0 = performance.now();
  const cost = optimizer.minimize(() => colar.loss(s, batch, at), true, vars);
  await cost!.data();
  cost!.dispose();
  return performance.now() - t0;
}

const times: number[] = [];
for (let i = 0; i < steps + 2; i++) times.push(await step());
const timed = times.slice(2).sort((a, b) => a - b);
console.log(JSON.stringify({ method: 'colar', steps, msPerStep: Math.round(timed[Math.floor(timed.length / 2)]) }));
