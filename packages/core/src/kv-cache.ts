/**
 * The key/value cache of the decoder. Keys and values are kept per layer as [B, H, S, D]
 * (S = positions seen so far, including any extra positions injected with `extraKV`); `keyMask`
 * [B, S] says which of those positions may be attended to (0 for padding); `position` is the
 * position id the next fed token gets (extra KV positions do not consume position ids).
 */
import * as tf from '@tensorflow/tfjs-core';

export interface LayerKv {
  k: tf.Tensor4D; // [B, H, S, D]
  v: tf.Tensor4D; // [B, H, S, D]
}

export interface KvCache {
  layers: LayerKv[];
  keyMask: tf.Tensor2D; // [B, S]
  position: number;
}

/** Per-layer keys/values supplied from outside (e.g. a coprocessor), attended to as earlier positions. */
export interface ExtraKv {
  layers: LayerKv[];
  /** [B, S_extra]; all ones when omitted. */
  mask?: tf.Tensor2D;
}

export function cacheLength(cache: KvCache | undefined): number {
  return cache ? cache.keyMask.shape[1] : 0;
}

export function disposeCache(cache: KvCache | undefined): void {
  if (!cache) return;
  for (const l of cache.layers) tf.dispose([l.k, l.v]);
  cache.keyMask.dispose();
}

/** Keep (tf.keep) every tensor of a cache so it survives the enclosing tidy. */
export function keepCache(cache: KvCache): KvCache {
  for (const l of cache.layers) {
    tf.keep(l.k);
    tf.keep(l.v);
  }
  tf.keep(cache.keyMask);
  return cache;
}
