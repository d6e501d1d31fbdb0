/**
 * The key/value cache of the decoder. Each layer's keys and values are kept as blocks along S
 * ([B, H, S_block, D] each, in order; their concatenation is the layer's [B, H, S, D], S = positions
 * seen so far, including any extra positions injected with `extraKV`); `keyMask` [B, S] says which
 * of those positions may be attended to (0 for padding); `position` is the position id the next fed
 * token gets (extra KV positions do not consume position ids).
 *
 * Why blocks: a cache held as one tensor per layer is copied whole at every decoding step (a
 * concat of S + 1 positions, ≈ a third of a step at S 512 on the native backend). With blocks, a
 * step shares the full blocks with the cache it came from (tf.clone: the same data under its own
 * reference, so disposing either cache leaves the other whole) and copies only the open last block,
 * which is shorter than CACHE_BLOCK positions; attention reads the blocks one by one.
 */
import * as tf from '@tensorflow/tfjs-core';

export interface LayerKv {
  k: tf.Tensor4D; // [B, H, S, D]
  v: tf.Tensor4D; // [B, H, S, D]
}

/** One layer of a cache: its keys and values as blocks along S, in order. */
export type CachedLayer = LayerKv[];

export interface KvCache {
  layers: CachedLayer[];
  keyMask: tf.Tensor2D; // [B, S]
  position: number;
}

/** Positions a cache block grows to before a new one starts. */
export const CACHE_BLOCK = 64;

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
  for (const block of cache.layers.flat()) tf.dispose([block.k, block.v]);
  cache.keyMask.dispose();
}

/**
 * Throws a clear error naming `where` unless every tensor of the cache and of the extra keys is
 * [B, H, S, D] for a model of `layers` layers, each cache layer's blocks add up to its keyMask's S,
 * and the extra keys' S matches their mask.
 */
export function checkKvShapes(
  where: string,
  dims: { B: number; H: number; D: number; layers: number },
  cache?: KvCache,
  extra?: ExtraKv,
): void {
  const { B, H, D, layers } = dims;
  const wanted = `[${B}, ${H}, S, ${D}]`;
  const check = (what: string, kv: LayerKv, S?: number) => {
    for (const t of [kv.k, kv.v])
      if (
        t.rank !== 4 ||
        t.shape[0] !== B ||
        t.shape[1] !== H ||
        t.shape[3] !== D ||
        (S !== undefined && t.shape[2] !== S)
      )
        throw new Error(
          `${where}: ${what} must be ${S === undefined ? wanted : `[${B}, ${H}, ${S}, ${D}]`}, got [${t.shape}]`,
        );
  };
  for (const [what, n] of [
    ['cache', cache?.layers.length],
    ['extraKV', extra?.layers.length],
  ] as const)
    if (n !== undefined && n !== layers) throw new Error(`${where}: ${what} has ${n} layers, the model has ${layers}`);
  cache?.layers.forEach((blocks, l) => {
    blocks.forEach((block, i) => check(`cache layer ${l} block ${i}`, block));
    const S = blocks.reduce((n, b) => n + b.k.shape[2], 0);
    if (S !== cacheLength(cache))
      throw new Error(`${where}: cache layer ${l} holds ${S} positions, its keyMask ${cacheLength(cache)}`);
  });
  extra?.layers.forEach((kv, l) => check(`extraKV layer ${l}`, kv, extra.mask?.shape[1]));
}

/**
 * The blocks of a layer with `parts` appended after `blocks` (both in order along S). `owned` parts
 * (made by the caller's forward) are taken as they are; the others (an earlier cache's blocks,
 * caller-supplied keys) are shared through tf.clone. An open block (shorter than `blockSize`) is
 * joined with what follows it. Call inside a tidy.
 */
export function appendBlocks(
  blocks: LayerKv[],
  parts: { kv: LayerKv; owned: boolean }[],
  blockSize = CACHE_BLOCK,
): CachedLayer {
  const out: { kv: LayerKv; owned: boolean }[] = [];
  for (const part of [...blocks.map((kv) => ({ kv, owned: false })), ...parts]) {
    const last = out[out.length - 1];
    if (last && last.kv.k.shape[2] < blockSize) {
      last.kv = wholeLayer([last.kv, part.kv]); // [B, H, S_last + S_part, D]
      last.owned = true;
    } else out.push({ ...part });
  }
  return out.map(({ kv, owned }) => (owned ? kv : { k: tf.clone(kv.k), v: tf.clone(kv.v) }));
}

/** A cached layer's keys and values as one tensor each, [B, H, S, D] (a copy unless it is one block). Call inside a tidy. */
export function wholeLayer(layer: CachedLayer): LayerKv {
  if (layer.length === 1) return layer[0];
  return {
    k: tf.concat(
      layer.map((b) => b.k),
      2,
    ) as tf.Tensor4D,
    v: tf.concat(
      layer.map((b) => b.v),
      2,
    ) as tf.Tensor4D,
  };
}

/** Keep (tf.keep) every tensor of a cache so it survives the enclosing tidy. */
export function keepCache(cache: KvCache): KvCache {
  for (const block of cache.layers.flat()) {
    tf.keep(block.k);
    tf.keep(block.v);
  }
  tf.keep(cache.keyMask);
  return cache;
}

/** Rows `rows` of a cache ([B, …] → [R, …]) as new tensors; the input is kept. Call inside a tidy and keepCache the result. */
export function cacheRows(cache: KvCache, rows: tf.Tensor1D): KvCache {
  return {
    layers: cache.layers.map((blocks) =>
      blocks.map((b) => ({ k: tf.gather(b.k, rows) as tf.Tensor4D, v: tf.gather(b.v, rows) as tf.Tensor4D })),
    ),
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
    if (missing === 0) return { ...c, layers: c.layers.map((blocks) => [wholeLayer(blocks)]) };
    const pad4Layer = (l: LayerKv) => ({ k: pad4(l.k), v: pad4(l.v) });
    const pad4 = (t: tf.Tensor4D) =>
      tf.pad(t, [
        [0, 0],
        [0, 0],
        [0, missing],
        [0, 0],
      ]) as tf.Tensor4D;
    return {
      layers: c.layers.map((blocks) => [pad4Layer(wholeLayer(blocks))]),
      keyMask: tf.pad(c.keyMask, [
        [0, 0],
        [0, missing],
      ]) as tf.Tensor2D,
      position: c.position,
    };
  });
  return {
    layers: padded[0].layers.map((_, i) => [
      {
        k: tf.concat(padded.map((c) => c.layers[i][0].k)) as tf.Tensor4D, // [ΣB, H, S, D]
        v: tf.concat(padded.map((c) => c.layers[i][0].v)) as tf.Tensor4D,
      },
    ]),
    keyMask: tf.concat(padded.map((c) => c.keyMask)) as tf.Tensor2D,
    position: Math.max(...caches.map((c) => c.position)),
  };
}
