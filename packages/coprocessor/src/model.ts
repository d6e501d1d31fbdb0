/**
 * The channel's forward pass, in the order it runs (Liu et al. 2024, arXiv 2412.17747 §3; paper
 * A, arXiv 2510.00494, H1 / H2):
 *   1. the Base encodes the left-padded prompts into its KV cache (`encodePrompts`; as core's
 *      `prefill`, so every row's latents start at the same key);
 *   2. the Coprocessor — a second LM with the Base's config, initialised from the Base's weights
 *      (Liu §3 and Fig. 4: "initialised from the pretrained weights", better than from scratch),
 *      plus N_L trainable soft tokens — reads that cache followed by the soft tokens once
 *      (`runCoprocessor`) and hands on, at the N_L soft positions, its last-layer states z (Liu:
 *      "N_L final-layer hidden states at the soft positions") or its per-layer keys and values
 *      (H1); `latentsFor` runs 1–2 and scales z by `latentScale`;
 *   3. a latent control, when asked, replaces the latents (`controlLatents`, core's one helper);
 *   4. the Base continues after the latents (`continueBase`), which arrive as input embeddings
 *      (Liu §3: latent embeddings "appended to the cache", i.e. processed by the Base as the next
 *      positions) or as per-layer keys and values concatenated onto its cache (H1: [K_l(x) ; K_l^φ],
 *      [V_l(x) ; V_l^φ], via core's `extraKV`, which consumes no position ids).
 * loss.ts scores 4's logits; generate.ts decodes from 4's cache.
 * Letters: B batch, T tokens, K = N_L latents, S keys, C width, H heads, D head width, L layers, V vocab.
 */
import * as tf from '@tensorflow/tfjs-core';
import {
  applyLatentControl,
  embeddingStd,
  leftPadRows,
  paddedWidth,
  TinyLm,
  tidy,
  uniqueVariableName,
  variableFrom,
  type KvCache,
  type LatentControl,
  type LayerKv,
  type Rng,
} from '@telepath/core';
import type { Injection } from './config.js';
import type { CoprocessorState } from './state.js';

export interface Coprocessor {
  lm: TinyLm;
  /** [K, C] soft tokens, the Coprocessor's inputs after the Base's prompt cache. */
  soft: tf.Variable;
  /**
   * Coprocessor parameters on the path to what this injection hands on, soft tokens included;
   * the others (the unused LM head's token table; for KV also the last layer's query, output,
   * MLP and the final norm) can never receive a gradient and are not trained.
   */
  used: Map<string, tf.Variable>;
}

export interface CoprocessorOutput {
  z: tf.Tensor3D; // [B, K, C] last-layer states (after the final LayerNorm) at the soft positions
  kv: LayerKv[]; // L × {k, v} [B, H, K, D] at the soft positions
}

export type Latents = { injection: 'embeddings'; z: tf.Tensor3D } | { injection: 'kv'; kv: LayerKv[] };

export interface PromptCache {
  cache: KvCache; // layers [B, H, S, D], keyMask [B, S]
  /** Real tokens per row = the position id of the row's first latent. */
  lengths: number[];
}

/**
 * Base forward over left-padded prompts (positions counted from each row's first real token),
 * padded to core's `paddedWidth` of the longest (few cache widths across batches, so the native
 * buffer pool reuses their buffers; padding is masked). Call inside a tidy.
 */
export function encodePrompts(base: TinyLm, prompts: number[][], padId: number): PromptCache {
  const B = prompts.length;
  const longest = Math.max(...prompts.map((p) => p.length));
  if (B === 0 || longest === 0) throw new Error('coprocessor: empty prompt batch');
  const S = paddedWidth(longest, base.config.contextLength);
  const { ids, mask, positions: pos } = leftPadRows(prompts, padId, 0, S);
  return tidy(() => {
    const out = base.forward(base.embed(tf.tensor2d(ids, [B, S], 'int32')), {
      attentionMask: tf.tensor2d(mask, [B, S]),
      positions: tf.tensor2d(pos, [B, S], 'int32'),
    });
    return { cache: out.cache, lengths: prompts.map((p) => p.length) };
  });
}

/** Names of the Coprocessor parameters that influence the latents of `injection`. */
export function usedParamNames(names: Iterable<string>, layers: number, injection: Injection): string[] {
  const last = `h${layers - 1}.`;
  const kvOnly = (n: string) =>
    n.startsWith('lnf.') || (n.startsWith(last) && !/\.(ln1\.[gb]|attn\.[wb][kv])$/.test(n));
  return [...names].filter((n) => n !== 'wte' && !(injection === 'kv' && kvOnly(n)));
}

/** The Coprocessor of `base` (weights copied) with K soft tokens drawn from N(0, std²). */
export function createCoprocessor(
  base: TinyLm,
  K: number,
  injection: Injection,
  softInitStd: number,
  rng: Rng,
): Coprocessor {
  if (!Number.isInteger(K) || K < 1) throw new Error(`coprocessor: latentTokens must be a positive integer, got ${K}`);
  const lm = new TinyLm(base.config, rng.fork('lm'), 'copro');
  for (const [name, v] of base.params) lm.params.get(name)!.assign(v);
  const C = base.config.width;
  // N(0, std²) draws; the Base's embedding std stays a tensor (no read back, so webgpu needs no synchronous read).
  const normals = rng.fork('soft').normalArray(K * C, softInitStd > 0 ? softInitStd : 1);
  const init = tf.tidy(() =>
    softInitStd > 0 ? tf.tensor2d(normals, [K, C]) : tf.mul(tf.tensor2d(normals, [K, C]), embeddingStd(base)),
  ); // [K, C]
  const soft = variableFrom(init, true, uniqueVariableName('copro.softEmbeds'));
  const used = new Map<string, tf.Variable>([['softEmbeds', soft]]);
  for (const n of usedParamNames(lm.params.keys(), base.config.layers, injection)) used.set(n, lm.params.get(n)!);
  return { lm, soft, used };
}

/**
 * Runs the Coprocessor on the Base's prompt cache (keys [B, H, S, D]) and its soft tokens at
 * positions lengths[b] + 0..K−1 (right after each row's prompt). Call inside a tidy.
 */
export function runCoprocessor(cp: Coprocessor, cache: KvCache, lengths: number[]): CoprocessorOutput {
  return tidy(() => {
    const B = lengths.length;
    const [K, C] = cp.soft.shape;
    const soft = tf.mul(tf.ones([B, 1, 1]), tf.reshape(cp.soft, [1, K, C])) as tf.Tensor3D; // [B, K, C] (broadcast: cheaper than tile)
    const positions = tf.tensor2d(
      lengths.flatMap((n) => Array.from({ length: K }, (_, k) => n + k)),
      [B, K],
      'int32',
    );
    const out = cp.lm.forward(soft, { cache, positions });
    return { z: out.hidden[out.hidden.length - 1], kv: out.newKv }; // [B, K, C]; L × [B, H, K, D]
  });
}

export function disposeCoprocessor(cp: Coprocessor): void {
  cp.lm.dispose();
  cp.soft.dispose();
  cp.used.clear();
}

/**
 * Prompt cache, Coprocessor output and the latents handed to the Base (KV as produced; z scaled
 * by `latentScale` for embedding injection). Call inside a tidy.
 */
export function latentsFor(s: CoprocessorState, prefixes: number[][]) {
  const prompt = encodePrompts(s.base, prefixes, s.tokenizer.padId);
  const out = runCoprocessor(s.cp, prompt.cache, prompt.lengths);
  const latents: Latents =
    s.spec.injection === 'kv'
      ? { injection: 'kv', kv: out.kv }
      : { injection: 'embeddings', z: tf.mul(out.z, s.latentScale) as tf.Tensor3D };
  return { prompt, out, latents };
}

/** Position ids the continuation starts after the prompt: N_L (after the latents) or 0 (overlapping them); config.answerPositions. */
export function answerShift(s: CoprocessorState): number {
  return s.config.answerPositions === 'after-latents' ? s.config.latentTokens : 0;
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
export function continueBase(
  base: TinyLm,
  prompt: PromptCache,
  latents: Latents,
  inputs: number[][],
  padId: number,
  shift = 0,
): { logits: tf.Tensor3D; offset: number; cache: KvCache } {
  const B = inputs.length;
  const T = Math.max(...inputs.map((r) => r.length));
  const K = latentInputs(latents);
  const ctx = base.config.contextLength;
  const ids: number[] = [];
  const mask: number[] = [];
  const pos: number[] = [];
  inputs.forEach((row, b) => {
    const start = prompt.lengths[b];
    if (start + Math.max(K, shift + row.length) > ctx)
      throw new Error(
        `coprocessor: prompt ${start} + latents ${K} (shift ${shift}) + ${row.length} tokens exceed contextLength ${ctx}`,
      );
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
      const out = base.forward(tokens, {
        cache: prompt.cache,
        extraKV: { layers: latents.kv },
        attentionMask: tokenMask,
        positions,
      });
      return { logits: out.logits, offset: 0, cache: out.cache };
    }
    const embeds = tf.concat([latents.z, tokens], 1) as tf.Tensor3D; // [B, K + T, C]
    const attentionMask = tf.concat([tf.ones([B, K]), tokenMask], 1) as tf.Tensor2D;
    const out = base.forward(embeds, { cache: prompt.cache, attentionMask, positions });
    return { logits: out.logits, offset: K, cache: out.cache }; // [B, K + T, V]
  });
}
