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

/** Rows `rows` of a cache ([B, …] → [R, …]) as new tensors; the input is kept. Call inside a tidy and keepCache the result. */
export function cacheRows(cache: KvCache, rows: tf.Tensor1D): KvCache {
  return {
    layers: cache.layers.map((l) => ({
      k: tf.gather(l.k, rows) as tf.Tensor4D,
      v: tf.gather(l.v, rows) as tf.Tensor4D,
    })),
    keyMask: tf.gather(cache.keyMask, rows) as tf.Tensor2D, // [R, S]
    position: cache.position,
  };
}

/**
 * Caches of the same model side by side along the batch, each shorter one padded at the end of S
 * with masked zeros (keyMask 0: never attended to) to the longest. Call inside a tidy and keepCache
 * the result.
 */
export function concatCacheRows(caches: KvCache[]): KvCache {
  const S = Math.max(...caches.map(cacheLength));
  const padded = caches.map((c) => {
    const missing = S - cacheLength(c);
    if (missing === 0) return c;
    const pad4 = (t: tf.Tensor4D) =>
      tf.pad(t, [
        [0, 0],
        [0, 0],
        [0, missing],
        [0, 0],
      ]) as tf.Tensor4D;
    return {
      layers: c.layers.map((l) => ({ k: pad4(l.k), v: pad4(l.v) })),
      keyMask: tf.pad(c.keyMask, [
        [0, 0],
        [0, missing],
      ]) as tf.Tensor2D,
      position: c.position,
    };
  });
  return {
    layers: padded[0].layers.map((_, i) => ({
      k: tf.concat(padded.map((c) => c.layers[i].k)) as tf.Tensor4D,
      v: tf.concat(padded.map((c) => c.layers[i].v)) as tf.Tensor4D,
    })),
    keyMask: tf.concat(padded.map((c) => c.keyMask)) as tf.Tensor2D,
    position: Math.max(...caches.map((c) => c.position)),
  };
}
