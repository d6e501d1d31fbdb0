/**
 * A random GPT-2-small-shaped Hugging Face folder (124,439,808 parameters, GPT-2's real vocabulary
 * from js-tiktoken's r50k_base as vocab.json + merges.txt), to time `telepath lm` and training at
 * that size without the real weights:
 *   npx tsx scripts/random-gpt2-folder.ts tmp/gpt2-small-random    (≈ 500 MB)
 */
import { writeFileSync, mkdirSync } from 'node:fs';
import * as path from 'node:path';
import { createRequire } from 'node:module';
import { bpeFilesFromRanks, initBackend, parseTiktokenRanks, Rng, saveGpt2, TinyLm } from '@telepath/core';
const require = createRequire(path.resolve('packages/tasks/package.json')); // js-tiktoken is @telepath/tasks' dev dependency
const r50k = (await import(require.resolve('js-tiktoken/ranks/r50k_base'))).default as {
  bpe_ranks: string;
  special_tokens: Record<string, number>;
};
const out = process.argv[2];
if (!out) throw new Error('usage: npx tsx scripts/random-gpt2-folder.ts <output folder>');
mkdirSync(out, { recursive: true });
const { vocab, merges } = bpeFilesFromRanks(parseTiktokenRanks(r50k.bpe_ranks), r50k.special_tokens);
writeFileSync(path.join(out, 'vocab.json'), JSON.stringify(vocab));
writeFileSync(path.join(out, 'merges.txt'), ['#version: 0.2', ...merges].join('\n') + '\n');
await initBackend('cpu', { quiet: true });
const lm = new TinyLm(
  { vocabSize: 50257, contextLength: 1024, layers: 12, heads: 12, width: 768, mlpRatio: 4, layerNormEps: 1e-5 },
  new Rng(0),
);
await saveGpt2(out, lm, {
  hf: { bos_token_id: 50256, eos_token_id: 50256, resid_pdrop: 0.1, embd_pdrop: 0.1, attn_pdrop: 0.1 },
});
console.log(`${out}: ${lm.size} parameters`);
