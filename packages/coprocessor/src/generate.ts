/**
 * Inference of the channel (Liu et al. 2024, arXiv 2412.17747 §3: "at evaluation the coprocessor
 * is called once at the end of the prompt"): the Base encodes the prompt, the Coprocessor reads
 * that cache once and hands on N_L latents (under a control when asked), the Base is fed ### and
 * decodes the answer greedily or by sampling. `trace` records, for the subspace analysis, what
 * the Base reads at the N_L latent positions: the scaled embeddings (liu, h2-embed) or the
 * per-layer keys and values (h1, h2).
 * Letters: B batch, K = N_L latents, C width, V vocab.
 */
import * as tf from '@tensorflow/tfjs-core';
import { answerFromIds, decode, encodeExample, keepCache, tidy, type DecodeResult, type Example, type GenerateOptions, type Generation, type LatentTrace } from '@telepath/core';
import { continueBase, controlLatents } from './channel.js';
import { answerShift, latentsFor } from './loss.js';
import type { CoprocessorState } from './state.js';

export async function generateAnswers(s: CoprocessorState, batch: Example[], o: GenerateOptions): Promise<Generation[]> {
  const tok = s.tokenizer;
  const K = s.config.latentTokens;
  const prompts = batch.map((ex) => encodeExample(tok, ex).prompt);
  const control = o.control ?? 'none';
  const start = tidy(() => {
    const { prompt, latents } = latentsFor(s, prompts);
    const shown = control === 'none' ? latents : controlLatents(latents, control, o.rng.fork('control'));
    const { logits, cache } = continueBase(s.base, prompt, shown, prompts.map(() => [tok.sepId]), tok.padId, answerShift(s)); // [B, offset + 1, V]
    const next = prompt.lengths.map((n) => n + answerShift(s) + 1);
    const last = tf.slice(logits, [0, logits.shape[1] - 1, 0], [-1, 1, -1]); // [B, 1, V] at ###
    return { cache: keepCache(cache), lastLogits: tf.reshape(last, [prompts.length, -1]) as tf.Tensor2D, next };
  });
  const room = s.base.config.contextLength - Math.max(...start.next);
  const maxNewTokens = Math.max(1, Math.min(o.maxNewTokens || s.config.maxNewTokens, room));
  let out: DecodeResult;
  try {
    out = await decode(s.base, start.cache, start.lastLogits, start.next, { maxNewTokens, padId: tok.padId, stopTokens: [tok.eosId], temperature: o.temperature, topP: o.topP, rng: o.rng });
  } finally {
    start.lastLogits.dispose();
  }
  return batch.map((ex, i) => {
    const ids = [tok.sepId, ...out.tokens[i]];
    return { id: ex.id, answer: answerFromIds(tok, ids).answer, text: tok.decode(ids), reasoningLength: K, reasoningKind: 'latents' };
  });
}

/**
 * What the Base reads at each latent slot, over `batch` (chunks of 32 examples): embedding
 * injection, the scaled states z·latentScale [N, C] it takes as input embeddings; KV injection,
 * every layer's key and value at that position, concatenated [N, 2·L·C] (layer 0's k, v, then
 * layer 1's, …). For KV variants the Coprocessor's last-layer state z goes through weights that
 * never train (the last layer's query, MLP and final norm), so it is not what the Base reads.
 * One asynchronous read per chunk.
 */
export async function traceLatents(s: CoprocessorState, batch: Example[]): Promise<LatentTrace> {
  const K = s.config.latentTokens;
  const N = batch.length;
  const kv = s.spec.injection === 'kv';
  const W = (kv ? 2 * s.base.config.layers : 1) * s.base.config.width;
  const slots = Array.from({ length: K }, (_, k) => ({ name: kv ? `kv${k}` : `z${k}`, vectors: new Float32Array(N * W), rows: N, width: W }));
  for (let i = 0; i < N; i += 32) {
    const chunk = batch.slice(i, i + 32);
    const vectors = tf.tidy(() => {
      const { latents } = latentsFor(s, chunk.map((ex) => encodeExample(s.tokenizer, ex).prompt));
      if (latents.injection === 'embeddings') return latents.z; // [b, K, C]
      const rows = latents.kv.flatMap(({ k, v }) => [k, v].map((t) => tf.reshape(tf.transpose(t, [0, 2, 1, 3]), [chunk.length, K, -1]))); // 2L × [b, K, C]
      return tf.concat(rows, 2); // [b, K, 2LC]
    });
    let read: Float32Array;
    try {
      read = (await vectors.data()) as Float32Array;
    } finally {
      vectors.dispose();
    }
    chunk.forEach((_, b) => {
      for (let k = 0; k < K; k++) slots[k].vectors.set(read.subarray((b * K + k) * W, (b * K + k + 1) * W), (i + b) * W);
    });
  }
  return { source: `coprocessor-${s.config.variant} (${kv ? 'per-layer keys and values' : 'scaled latent embeddings'} the Base reads)`, slots, exampleIds: batch.map((ex) => ex.id) };
}
