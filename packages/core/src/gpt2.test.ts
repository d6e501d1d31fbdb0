import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as tf from '@tensorflow/tfjs-core';
import { afterAll, expect, it } from 'vitest';
import { generate } from './generate.js';
import { loadGpt2, readGpt2Weights, saveGpt2 } from './gpt2.js';
import { readSafetensors } from './safetensors.js';
import { expectNoLeak, forEachBackend } from './testing.js';

/** Made by scripts/make-tiny-gpt2.py (plain PyTorch forward in float64 on the float32 weights). */
const FIXTURES = fileURLToPath(new URL('./__fixtures__/', import.meta.url));
const TINY = path.join(FIXTURES, 'tiny-gpt2');
const reference = JSON.parse(readFileSync(path.join(TINY, 'reference.json'), 'utf8')) as {
  prompt: number[];
  logits: number[][];
  generated: number[];
};

forEachBackend(
  (backend, ready) => {
    it('logits match the PyTorch reference within 1e-4 at every prompt position', async (ctx) => {
      if (!ready()) return ctx.skip();
      const { lm } = await loadGpt2(TINY);
      const T = reference.prompt.length;
      const V = lm.config.vocabSize;
      const logits = await expectNoLeak(() =>
        tf.tidy(() => lm.forward(lm.embed(tf.tensor2d(reference.prompt, [1, T], 'int32'))).logits.dataSync()),
      );
      expect(logits.length).toBe(T * V);
      let worst = 0;
      reference.logits.forEach((row, t) =>
        row.forEach((v, i) => (worst = Math.max(worst, Math.abs(v - logits[t * V + i])))),
      );
      expect(worst).toBeLessThan(1e-4);
      lm.dispose();
    });

    it('the greedy continuation (KV-cache decoding) matches the reference token for token', async (ctx) => {
      if (!ready()) return ctx.skip();
      const { lm, tokenizer } = await loadGpt2(TINY);
      const out = await expectNoLeak(() =>
        generate(lm, [reference.prompt], {
          maxNewTokens: reference.generated.length,
          padId: tokenizer.id('<|endoftext|>'),
        }),
      );
      expect(out.tokens[0]).toEqual(reference.generated);
      lm.dispose();
    });
  },
  ['cpu', 'native'],
);

it('names without the transformer. prefix (F16, with attn.bias buffers) and in BF16 load to the rounded F32 weights', async () => {
  const f32 = await readGpt2Weights(TINY);
  const f16 = await readGpt2Weights(path.join(FIXTURES, 'tiny-gpt2-f16'));
  const bf16 = await readGpt2Weights(path.join(FIXTURES, 'tiny-gpt2-bf16'));
  expect([f32.dtypes, f16.dtypes, bf16.dtypes]).toEqual([['F32'], ['F16'], ['BF16']]);
  expect([...f16.weights.keys()]).toEqual([...f32.weights.keys()]);
  const bits = new Uint32Array(1);
  const asFloat = new Float32Array(bits.buffer);
  for (const [name, exact] of f32.weights) {
    const half = f16.weights.get(name)!;
    const brain = bf16.weights.get(name)!;
    exact.forEach((v, i) => {
      // F16: 11 significant bits (values here are far from F16's subnormals).
      expect(Math.abs(half[i] - v)).toBeLessThanOrEqual(Math.abs(v) * 2 ** -11 + 1e-7);
      // BF16: float32 rounded to nearest even on its top 16 bits, exactly.
      asFloat[0] = v;
      bits[0] = (bits[0] + 0x7fff + ((bits[0] >>> 16) & 1)) & 0xffff0000;
      expect(brain[i]).toBe(asFloat[0]);
    });
  }
});

const scratch = mkdtempSync(path.join(tmpdir(), 'telepath-gpt2-'));
afterAll(async () => (await import('node:fs/promises')).rm(scratch, { recursive: true, force: true }));

it('save → load is bit-exact, with Hugging Face names and the tokenizer files', async () => {
  await tf.setBackend('cpu');
  const { lm, hf, tokenizer } = await loadGpt2(TINY);
  const out = path.join(scratch, 'saved');
  await saveGpt2(out, lm, { hf, tokenizer });
  const original = await readSafetensors(path.join(TINY, 'model.safetensors'));
  const saved = await readSafetensors(path.join(out, 'model.safetensors'));
  expect([...saved.tensors.keys()].sort()).toEqual([...original.tensors.keys()].sort());
  for (const [name, t] of original.tensors) {
    expect(saved.tensors.get(name)!.shape).toEqual(t.shape);
    expect(Buffer.from(saved.tensors.get(name)!.values.buffer).equals(Buffer.from(t.values.buffer))).toBe(true);
  }
  const again = await loadGpt2(out);
  for (const [name, v] of lm.params)
    expect(Buffer.from(again.lm.params.get(name)!.dataSync().buffer).equals(Buffer.from(v.dataSync().buffer))).toBe(
      true,
    );
  expect(JSON.parse(readFileSync(path.join(out, 'config.json'), 'utf8'))).toMatchObject({
    model_type: 'gpt2',
    n_embd: 32,
    n_layer: 2,
    vocab_size: 353,
    tie_word_embeddings: true,
  });
  expect(again.tokenizer.encode('Janet has 3 apples.')).toEqual(tokenizer.encode('Janet has 3 apples.'));
  lm.dispose();
  again.lm.dispose();
});

it("Telepath's special tokens grow the embedding with rows copied from << (markers) and <|endoftext|> (pad/bos/eos/unk)", async () => {
  await tf.setBackend('cpu');
  const { lm, tokenizer } = await loadGpt2(TINY, { addSpecialTokens: true });
  expect(lm.config.vocabSize).toBe(353 + 8);
  expect(tokenizer.size).toBe(361);
  const wte = lm.params.get('wte')!.arraySync() as number[][];
  const eot = tokenizer.id('<|endoftext|>');
  const shifts = tokenizer.id('<<');
  for (const name of ['pad', 'bos', 'eos', 'unk'] as const) expect(wte[tokenizer.id(name)]).toEqual(wte[eot]);
  for (const name of ['bot', 'eot', 'latent', 'sep'] as const) expect(wte[tokenizer.id(name)]).toEqual(wte[shifts]);
  // Saved and reloaded, the specials keep their ids and rows; nothing is added twice.
  const out = path.join(scratch, 'with-specials');
  await saveGpt2(out, lm, { tokenizer });
  const again = await loadGpt2(out, { addSpecialTokens: true });
  expect(again.lm.config.vocabSize).toBe(361);
  expect(again.tokenizer.id('latent')).toBe(tokenizer.id('latent'));
  expect(again.tokenizer.encode('x<latent>### 4', { bos: true })).toEqual(
    tokenizer.encode('x<latent>### 4', { bos: true }),
  );
  lm.dispose();
  again.lm.dispose();
});
