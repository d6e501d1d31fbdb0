/**
 * Milliseconds per training step of each variant and N_L on a toy task, for sizing experiments:
 * `tsx packages/coprocessor/bench/step.bench.ts [backend] [layers] [width]`.
 */
import * as tf from '@tensorflow/tfjs-core';
import { exampleTexts, initBackend, Rng, TinyLm, Tokenizer, type BackendCandidate } from '@telepath/core';
import { coprocessor } from '../src/index.js';
import { toyExamples } from '../src/testing.js';

const [backend = 'cpu', layers = '4', width = '128'] = process.argv.slice(2);
await initBackend(backend as BackendCandidate, { quiet: true });
const data = toyExamples(64).map((ex) => ({ ...ex, question: `${ex.question} ${ex.question} ${ex.question}` })); // ≈ Countdown-3 prompt length
const tokenizer = Tokenizer.build(exampleTexts(data));
for (const variant of ['liu', 'h1', 'h2'] as const) {
  for (const K of [1, 4, 16]) {
    const lm = new TinyLm(
      {
        vocabSize: tokenizer.size,
        contextLength: 64,
        layers: Number(layers),
        heads: 4,
        width: Number(width),
        mlpRatio: 4,
        dropout: 0,
        layerNormEps: 1e-5,
        initStd: 0.02,
      },
      new Rng(0),
    );
    const s = coprocessor.init(
      { lm, tokenizer, rng: new Rng(0), backend },
      { ...coprocessor.defaults, variant, latentTokens: K },
    );
    const vars = [...s.trainable('sft').values()];
    const step = async () => {
      const { value, grads } = tf.variableGrads(
        () => coprocessor.loss(s, data.slice(0, 32), { step: 0, phase: 'sft', rng: new Rng(0) }),
        vars,
      );
      await value.data(); // waits for the step (asynchronous: works on webgpu)
      tf.dispose([value, ...Object.values(grads)]);
    };
    await step();
    const t0 = performance.now();
    for (let i = 0; i < 5; i++) await step();
    console.log(`${variant} N_L=${K}: ${((performance.now() - t0) / 5).toFixed(0)} ms/step`);
    s.dispose();
  }
}
