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
import {
  decodeGenerations,
  encodeExample,
  keepCache,
  tidy,
  traceInChunks,
  type Example,
  type GenerateOptions,
  type Generation,
  type LatentTrace,
} from '@telepath/core';
import { answerShift, continueBase, controlLatents, latentsFor } from './model.js';
import type { CoprocessorState } from './state.js';

export async function generateAnswers(
  s: CoprocessorState,
  batch: Example[],
  o: GenerateOptions,
): Promise<Generation[]> {
  const tok = s.tokenizer;
  const K = s.config.latentTokens;
  const prompts = batch.map((ex) => encodeExample(tok, ex).prompt);
  const control = o.control ?? 'none';
  const start = tidy(() => {
    const { prompt, latents } = latentsFor(s, prompts);
    const shown = control === 'none' ? latents : controlLatents(latents, control, o.rng.fork('control'));
    const { logits, cache } = continueBase(
      s.base,
      prompt,
      shown,
      prompts.map(() => [tok.sepId]),
      tok.padId,
      answerShift(s),
    ); // [B, offset + 1, V]
    const next = prompt.lengths.map((n) => n + answerShift(s) + 1);
    const last = tf.slice(logits, [0, logits.shape[1] - 1, 0], [-1, 1, -1]); // [B, 1, V] at ###
    return { cache: keepCache(cache), lastLogits: tf.reshape(last, [prompts.length, -1]) as tf.Tensor2D, next };
  });
  return decodeGenerations(
    s.base,
    tok,
    batch,
    { cache: start.cache, lastLogits: start.lastLogits, positions: start.next },
    {
      maxNewTokens: o.maxNewTokens || s.config.maxNewTokens,
      temperature: o.temperature,
      topP: o.topP,
      rng: o.rng,
      forced: [tok.sepId],
      latents: K,
    },
  );
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
  const kv = s.spec.injection === 'kv';
  const W = (kv ? 2 * s.base.config.layers : 1) * s.base.config.width;
  const slotNames = Array.from({ length: K }, (_, k) => (kv ? `kv${k}` : `z${k}`));
  const source = `coprocessor-${s.config.variant} (${kv ? 'per-layer keys and values' : 'scaled latent embeddings'} the Base reads)`;
  return traceInChunks(batch, { source, slotNames, width: W, chunk: 32 }, async (chunk) => {
    const vectors = tf.tidy(() => {
      const { latents } = latentsFor(
        s,
        chunk.map((ex) => encodeExample(s.tokenizer, ex).prompt),
      );
      if (latents.injection === 'embeddings') return latents.z; // [b, K, C]
      const rows = latents.kv.flatMap(({ k, v }) =>
        [k, v].map((t) => tf.reshape(tf.transpose(t, [0, 2, 1, 3]), [chunk.length, K, -1])),
      ); // 2L × [b, K, C]
      return tf.concat(rows, 2); // [b, K, 2LC]
    });
    try {
      return (await vectors.data()) as Float32Array;
    } finally {
      vectors.dispose();
    }
  });
}
