/**
 * Golden test of the core alone (house rule 9c): fixedInitLm trained for 5 steps with the
 * next-token loss on the toy addition task, on cpu. Catches changes in the LM, the loss, the
 * optimizer and the training loop before any method sees them.
 * Regenerate after an intended change: cd packages/core && TELEPATH_UPDATE_GOLDEN=1 npx vitest run golden
 */
import * as tf from '@tensorflow/tfjs-core';
import { fileURLToPath } from 'node:url';
import { beforeAll, expect, it } from 'vitest';
import { initBackend } from './backend.js';
import { maskedCrossEntropy } from './loss.js';
import { Rng } from './rng.js';
import { encodeExample, exampleTexts, packSegments } from './sequence.js';
import { expectGolden, fixedInitLm, GOLDEN_TRAIN, goldenBatch, tinyLmConfig, toyAdditionExamples } from './testing.js';
import { Tokenizer } from './tokenizer.js';
import { train } from './train.js';

const FIXTURE = fileURLToPath(new URL('./__fixtures__/lm-golden.json', import.meta.url));

beforeAll(async () => {
  await initBackend('cpu', { quiet: true });
});

it('lm: 5 training steps from fixedInitLm reproduce the golden losses', async () => {
  const data = toyAdditionExamples(64);
  const tok = Tokenizer.build(exampleTexts(data));
  const lm = fixedInitLm({ ...tinyLmConfig, vocabSize: tok.size, contextLength: 24 });
  const t0 = performance.now();
  const res = await train({
    params: lm.params,
    rng: new Rng(11),
    config: GOLDEN_TRAIN,
    loss: (at) => {
      const rows = goldenBatch(data, at.step).map((ex) => {
        const e = encodeExample(tok, ex);
        return [
          { ids: e.prompt, trained: true },
          { ids: e.reasoning, trained: true },
          { ids: e.answer, trained: true },
        ];
      });
      const p = packSegments(rows, tok.padId, lm.config.contextLength);
      return tf.tidy(() => maskedCrossEntropy(lm.forward(lm.embed(p.ids)).logits, p.targets, p.lossMask));
    },
  });
  expect(performance.now() - t0).toBeLessThan(5000);
  await expectGolden(FIXTURE, res.losses);
  lm.dispose();
});
