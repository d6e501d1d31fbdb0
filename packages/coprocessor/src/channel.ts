/**
 * The Base side of the channel: encode the prompts into the Base's KV cache, then let the Base
 * continue after the latents, which arrive either as input embeddings (Liu et al. 2024, arXiv
 * 2412.17747 §3: latent embeddings "appended to the cache", i.e. processed by the Base as the
 * next positions) or as per-layer keys and values concatenated onto its cache (paper A, arXiv
 * 2510.00494, H1: [K_l(x) ; K_l^φ], [V_l(x) ; V_l^φ], via core's `extraKV`, which consumes no
 * position ids). Controls (zero / shuffle / random) go through core's one helper.
 * Prompts are left-padded as in core's `prefill`, so every row's latents start at the same key.
 * Letters: B batch, T tokens, K = N_L latents, S keys, C width, H heads, D head width, V vocab.
 */
import * as tf from '@tensorflow/tfjs-core';
import { applyLatentControl, leftPadRows, tidy, type KvCache, type LatentControl, type LayerKv, type Rng, type TinyLm } from '@telepath/core';

export type Latents = { injection: 'embeddings'; z: tf.Tensor3D } | { injection: 'kv'; kv: LayerKv[] };

export interface PromptCache {
  cache: KvCache; // layers [B, H, S, D], keyMask [B, S]
  /** Real tokens per row = the position id of the row's first latent. */
  lengths: number[];
}

/** Base forward over left-padded prompts (positions counted from each row's first real token). Call inside a tidy. */
export function encodePrompts(base: TinyLm, prompts: number[][], padId: number): PromptCache {
  const B = prompts.length;
  const S = Math.max(...prompts.map((p) => p.length));
  if (B === 0 || S === 0) throw new Error('coprocessor: empty prompt batch');
  const { ids, mask, positions: pos } = leftPadRows(prompts, padId);
  return tidy(() => {
    const out = base.forward(base.embed(tf.tensor2d(ids, [B, S], 'int32')), {
      attentionMask: tf.tensor2d(mask, [B, S]),
      positions: tf.tensor2d(pos, [B, S], 'int32'),
    });
    return { cache: out.cache, lengths: prompts.map((p) => p.length) };
  });
}

/** Number of input positions (queries) the latents occupy in the Base: K for embeddings, none for KV. */
export function latentInputs(l: Latents): number {
  return l.injection === 'embeddings' ? l.z.shape[1] : 0;
}

/**
 * Applies a control to the latents. KV latents: `random` draws each layer's keys and values of
 * each latent position with that layer's own norm (per layer, per k / v, per position: the layers'
 * scales differ, and one norm over all layers would hand some layers far more than theirs); `shuffle`
 * moves whole positions, all layers together, between examples; `zero` zeroes everything.
 */
export function controlLatents(l: Latents, control: LatentControl, rng: Rng): Latents {
  if (l.injection === 'embeddings') return { injection: 'embeddings', z: applyLatentControl(l.z, control, rng) };
  return tidy(() => {
    const [B, H, K, D] = l.kv[0].k.shape;
    const toRows = (t: tf.Tensor4D) => tf.reshape(tf.transpose(t, [0, 2, 1, 3]), [B, K, H * D]); // [B, K, C]
    const fromRows = (t: tf.Tensor) => tf.transpose(tf.reshape(t, [B, K, H, D]), [0, 2, 1, 3]) as tf.Tensor4D; // [B, H, K, D]
    if (control === 'random') {
      return {
        injection: 'kv' as const,
        kv: l.kv.map((x, i) => ({
          k: fromRows(applyLatentControl(toRows(x.k), 'random', rng.fork(`layer${i}/k`))),
          v: fromRows(applyLatentControl(toRows(x.v), 'random', rng.fork(`layer${i}/v`))),
        })),
      };
    }
    const parts = l.kv.flatMap((x) => [toRows(x.k), toRows(x.v)]);
    const flat = applyLatentControl(tf.concat(parts, 2) as tf.Tensor3D, control, rng); // [B, K, 2LC]
    const back = tf.split(flat, parts.length, 2).map(fromRows);
    return { injection: 'kv' as const, kv: l.kv.map((_, i) => ({ k: back[2 * i], v: back[2 * i + 1] })) };
  });
}

/**
 * The Base continues after prompt cache + latents with `inputs` (right-padded token rows, each at
 * least one token). Embedding latents take position ids n..n+K−1 (n = the row's prompt length);
 * the inputs start at n + `shift` (0: the latents overlap the inputs' ids, as KV latents do in
 * core's extraKV; K: Liu's literal layout). Returns the logits of every new column [B, offset + T, V]
 * — the inputs' are at columns offset.. (offset = K latent columns for embeddings, 0 for KV; not
 * sliced off, since the cpu backend's strided Slice is slow) — and the cache holding prompt,
 * latents and inputs. Call inside a tidy.
 */
export function continueBase(base: TinyLm, prompt: PromptCache, latents: Latents, inputs: number[][], padId: number, shift = 0): { logits: tf.Tensor3D; offset: number; cache: KvCache } {
  const B = inputs.length;
  const T = Math.max(...inputs.map((r) => r.length));
  const K = latentInputs(latents);
  const ctx = base.config.contextLength;
  const ids: number[] = [];
  const mask: number[] = [];
  const pos: number[] = [];
  inputs.forEach((row, b) => {
    const start = prompt.lengths[b];
    if (start + Math.max(K, shift + row.length) > ctx) throw new Error(`coprocessor: prompt ${start} + latents ${K} (shift ${shift}) + ${row.length} tokens exceed contextLength ${ctx}`);
    for (let k = 0; k < K; k++) pos.push(start + k);
    for (let t = 0; t < T; t++) {
      ids.push(t < row.length ? row[t] : padId);
      mask.push(t < row.length ? 1 : 0);
      pos.push(Math.min(start + shift + t, ctx - 1)); // padding positions are masked; clamp keeps them in range
    }
  });
  return tidy(() => {
    const tokens = base.embed(tf.tensor2d(ids, [B, T], 'int32')); // [B, T, C]
    const tokenMask = tf.tensor2d(mask, [B, T]);
    const positions = tf.tensor2d(pos, [B, K + T], 'int32');
    if (latents.injection === 'kv') {
      const out = base.forward(tokens, { cache: prompt.cache, extraKV: { layers: latents.kv }, attentionMask: tokenMask, positions });
      return { logits: out.logits, offset: 0, cache: out.cache };
    }
    const embeds = tf.concat([latents.z, tokens], 1) as tf.Tensor3D; // [B, K + T, C]
    const attentionMask = tf.concat([tf.ones([B, K]), tokenMask], 1) as tf.Tensor2D;
    const out = base.forward(embeds, { cache: prompt.cache, attentionMask, positions });
    return { logits: out.logits, offset: K, cache: out.cache }; // [B, K + T, V]
  });
}
