/**
 * A GPT-2-style decoder LM: learned positions (or rotary ones), pre-LayerNorm blocks, causal multi-head
 * attention, tanh-GELU MLP, output head tied to the token embedding. This is the contract every
 * method in Telepath uses:
 *   embed(ids [B,T]) → [B,T,C]
 *   forward(embeds [B,T,C], { cache?, attentionMask?, extraKV?, positions? })
 *     → { logits [B,T,V], hidden: L+1 × [B,T,C], cache, newKv: L × {k, v} [B,H,T,D] }
 * `hidden[0]` is the embedding output (token + learned position; the token alone with rotary
 * positions, which rotate each layer's queries and keys instead), `hidden[l]` the output of block l, and
 * the last entry is after the final LayerNorm (the LM head's input, as in GPT-2). Decoding step
 * by step with the returned cache gives the same logits as one full forward.
 * Letters: B batch, T new tokens, S key positions, C width, H heads, D head width, V vocab, L layers.
 */
import * as tf from '@tensorflow/tfjs-core';
import { parseConfig } from './config.js';
import { hostValues } from './read.js';
import { appendBlocks, checkKvShapes, type CachedLayer, type ExtraKv, type KvCache, type LayerKv } from './kv-cache.js';
import { dropout, gelu, layerNorm, scaledMaskedSoftmax } from './layers.js';
import { linear, matMulT } from './matmul.js';
import { Rng } from './rng.js';
import { rotaryTables, rotation, type RotaryTables } from './rotary.js';
import { tidy, uniqueVariableName, variableFrom } from './tidy.js';

export interface LmConfig {
  vocabSize: number;
  /** Number of positions (the longest sequence, prefix and cache included). */
  contextLength: number;
  /**
   * 'learned': GPT-2's added position table `wpe`. 'rotary': RoPE (Su et al. 2021, RoFormer §3.4):
   * queries and keys rotated by their position, so attention scores depend on relative offsets;
   * no `wpe` parameter. Keys in the cache (and in `extraKV`) are stored already rotated.
   */
  positions: PositionKind;
  layers: number;
  heads: number;
  width: number;
  /** MLP hidden width = mlpRatio · width. */
  mlpRatio: number;
  dropout: number;
  layerNormEps: number;
  /** Std of the normal initialiser (GPT-2: 0.02); residual projections get std / sqrt(2L). */
  initStd: number;
}

export type PositionKind = 'learned' | 'rotary';
export const POSITION_KINDS: readonly PositionKind[] = ['learned', 'rotary'];

export const DEFAULT_LM_CONFIG: LmConfig = {
  vocabSize: 64,
  contextLength: 64,
  positions: 'learned',
  layers: 4,
  heads: 4,
  width: 128,
  mlpRatio: 4,
  dropout: 0,
  layerNormEps: 1e-5,
  initStd: 0.02,
};

/** The default architecture without what a task decides (its vocabulary, its context): what the lab's and the agents' configs start from. */
export const DEFAULT_LM_SHAPE: Omit<LmConfig, 'vocabSize' | 'contextLength'> = (({
  vocabSize,
  contextLength,
  ...shape
}) => shape)(DEFAULT_LM_CONFIG);

export interface ForwardOptions {
  cache?: KvCache;
  /** [B, T]: 1 for real tokens, 0 for padding (padding keys are never attended to). */
  attentionMask?: tf.Tensor2D;
  extraKV?: ExtraKv;
  /** [B, T] int32 position ids; default cache.position + 0..T−1. */
  positions?: tf.Tensor2D;
  /** Enables dropout (with `rng`). */
  training?: boolean;
  rng?: Rng;
}

export interface LmOutput {
  logits: tf.Tensor3D; // [B, T, V]
  hidden: tf.Tensor3D[]; // L+1 × [B, T, C]
  cache: KvCache;
  /** Keys and values of the T new positions only (the tail of `cache.layers`), without slicing. */
  newKv: LayerKv[]; // L × {k, v} [B, H, T, D]
}

export function lmConfig(overrides: unknown = {}): LmConfig {
  const c = parseConfig(DEFAULT_LM_CONFIG, overrides, 'lm');
  for (const k of ['vocabSize', 'contextLength', 'layers', 'heads', 'width', 'mlpRatio'] as const) {
    if (!Number.isInteger(c[k]) || c[k] <= 0) throw new Error(`lm.${k} must be a positive integer, got ${c[k]}`);
  }
  if (c.width % c.heads !== 0) throw new Error(`lm.width (${c.width}) must be divisible by lm.heads (${c.heads})`);
  if (!POSITION_KINDS.includes(c.positions))
    throw new Error(`lm.positions must be one of ${POSITION_KINDS.join(', ')}, got "${c.positions}"`);
  if (c.positions === 'rotary' && (c.width / c.heads) % 2 !== 0)
    throw new Error(`lm.positions "rotary" needs an even head width, got width/heads = ${c.width / c.heads}`);
  if (c.dropout < 0 || c.dropout >= 1) throw new Error(`lm.dropout must be in [0, 1), got ${c.dropout}`);
  return c;
}

export class TinyLm {
  readonly config: LmConfig;
  /** Parameters by name ('wte', 'h0.attn.wq', …) in a fixed order; checkpoints rely on the names. */
  readonly params: Map<string, tf.Variable>;
  /** Rotary positions only: fixed tables, built once (not parameters). */
  private readonly rotary: RotaryTables | null;

  /** `weights` (by parameter name, e.g. a pretrained checkpoint's) replace the random initial values. */
  constructor(
    config: Partial<LmConfig> | LmConfig,
    rng: Rng,
    namePrefix = 'lm',
    weights?: ReadonlyMap<string, Float32Array>,
  ) {
    this.config = lmConfig(config);
    this.params = initParams(this.config, rng.fork('init'), namePrefix, weights);
    this.rotary =
      this.config.positions === 'rotary'
        ? rotaryTables(this.config.contextLength, this.config.width / this.config.heads)
        : null;
  }

  /** [B, T] int32 ids → [B, T, C] token embeddings (positions are added in `forward`). */
  embed(ids: tf.Tensor2D): tf.Tensor3D {
    const { vocabSize } = this.config;
    if (ids.rank !== 2) throw new Error(`TinyLm.embed: ids must be [B, T], got shape [${ids.shape}]`);
    if (ids.dtype !== 'int32') throw new Error(`TinyLm.embed: ids must be int32, got ${ids.dtype}`);
    const host = hostValues(ids);
    if (host) {
      for (let i = 0; i < host.length; i++) {
        if (!(host[i] >= 0 && host[i] < vocabSize))
          throw new Error(`TinyLm.embed: token id ${host[i]} outside [0, ${vocabSize})`);
      }
    }
    return tf.tidy(() => {
      const rows = tf.gather(this.p('wte'), ids) as tf.Tensor3D; // [B, T, C]
      if (host) return rows;
      // GPU-resident ids (webgpu) cannot be checked without a sync read: an out-of-range id
      // gives NaN embeddings (a loud NaN downstream) instead of a silently clamped row.
      const valid = tf.logicalAnd(tf.greaterEqual(ids, 0), tf.less(ids, vocabSize)); // [B, T]
      return tf.where(tf.expandDims(valid, -1), rows, tf.fill(rows.shape, Number.NaN)) as tf.Tensor3D;
    });
  }

  forward(embeds: tf.Tensor3D, o: ForwardOptions = {}): LmOutput {
    const c = this.config;
    checkForwardShapes(c, embeds, o);
    return tidy(() => {
      const [B, T] = embeds.shape;
      const drop = o.training && c.dropout > 0 && o.rng ? o.rng : undefined;
      const pos = o.positions ?? defaultPositions(B, T, o.cache?.position ?? 0, c.contextLength);
      let x = this.rotary ? embeds : (tf.add(embeds, tf.gather(this.p('wpe'), pos)) as tf.Tensor3D); // [B, T, C]
      const rotate = this.rotary ? rotation(this.rotary, pos) : undefined;
      x = dropout(x, c.dropout, drop?.tfSeed()) as tf.Tensor3D;
      const hidden: tf.Tensor3D[] = [x];
      const keyMask = buildKeyMask(B, T, o); // [B, S]
      const bias = attentionBias(keyMask, T); // [B, 1, T, S]
      const layers: CachedLayer[] = [];
      const newKv: LayerKv[] = [];
      for (let l = 0; l < c.layers; l++) {
        // A tidy per layer frees its attention scores and probabilities ([B, H, T, S] each) before
        // the next layer runs, so without a gradient tape the peak is one layer's, not all of them
        // (4 × 128, B 100, T 419: 4.1 GB live at once otherwise). Under a tape, what the backward
        // pass needs is kept by the tape itself.
        const layer = tidy(() => {
          const att = this.attention(
            l,
            layerNorm(x, this.p(`h${l}.ln1.g`), this.p(`h${l}.ln1.b`), c.layerNormEps),
            o.cache?.layers[l] ?? [],
            o.extraKV?.layers[l],
            bias,
            drop,
            rotate,
          );
          const mid = tf.add(x, dropout(att.out, c.dropout, drop?.tfSeed())) as tf.Tensor3D; // [B, T, C]
          const m = this.mlp(l, layerNorm(mid, this.p(`h${l}.ln2.g`), this.p(`h${l}.ln2.b`), c.layerNormEps));
          return {
            kv: att.kv,
            newKv: att.newKv,
            out: tf.add(mid, dropout(m, c.dropout, drop?.tfSeed())) as tf.Tensor3D,
          };
        });
        layers.push(layer.kv);
        newKv.push(layer.newKv);
        x = layer.out;
        hidden.push(x);
      }
      const final = layerNorm(x, this.p('lnf.g'), this.p('lnf.b'), c.layerNormEps) as tf.Tensor3D; // [B, T, C]
      hidden[c.layers] = final;
      const flat = tf.reshape(final, [B * T, c.width]) as tf.Tensor2D; // [BT, C]
      const logits = tf.reshape(matMulT(flat, this.p('wte') as tf.Tensor2D, false, true), [
        B,
        T,
        c.vocabSize,
      ]) as tf.Tensor3D;
      const cache: KvCache = { layers, keyMask, position: (o.cache?.position ?? 0) + T };
      return { logits, hidden, cache, newKv };
    });
  }

  /** Parameter count. */
  get size(): number {
    let n = 0;
    for (const v of this.params.values()) n += v.size;
    return n;
  }

  variables(): tf.Variable[] {
    return [...this.params.values()];
  }

  dispose(): void {
    for (const v of this.params.values()) v.dispose();
    this.params.clear();
    if (this.rotary) for (const t of Object.values(this.rotary)) t.dispose();
  }

  private p(name: string): tf.Variable {
    const v = this.params.get(name);
    if (!v) throw new Error(`TinyLm: no parameter ${name}`);
    return v;
  }

  /**
   * Causal self-attention of layer l over the cache's blocks, the extra keys and the new positions.
   * `kv` is the layer's cache after this step (kv-cache.ts: full blocks shared, the new positions
   * joined to the open last block); scores are computed block by block and joined ([B, H, T, S]: no
   * copy of the keys), and the output sums each block's probabilities times its values.
   */
  private attention(
    l: number,
    h: tf.Tensor,
    cached: LayerKv[],
    extra: LayerKv | undefined,
    bias: tf.Tensor4D,
    drop: Rng | undefined,
    rotate?: (t: tf.Tensor4D) => tf.Tensor4D,
  ): { out: tf.Tensor3D; kv: CachedLayer; newKv: LayerKv } {
    const { heads: H, width: C } = this.config;
    const [B, T] = h.shape;
    const D = C / H;
    const split = (t: tf.Tensor) => tf.transpose(tf.reshape(t, [B, T, H, D]), [0, 2, 1, 3]) as tf.Tensor4D; // [B, H, T, D]
    const place = rotate ?? ((t: tf.Tensor4D) => t);
    const q = place(split(linear(h, this.p(`h${l}.attn.wq`), this.p(`h${l}.attn.bq`))));
    const newKv = {
      k: place(split(linear(h, this.p(`h${l}.attn.wk`), this.p(`h${l}.attn.bk`)))),
      v: split(linear(h, this.p(`h${l}.attn.wv`), this.p(`h${l}.attn.bv`))),
    };
    // The layer's cache after this step, in order along S: the new positions joined to the open last block.
    const kv = appendBlocks(cached, [...(extra ? [{ kv: extra, owned: false }] : []), { kv: newKv, owned: true }]);
    const scores =
      kv.length === 1
        ? tf.matMul(q, kv[0].k, false, true)
        : tf.concat(
            kv.map((b) => tf.matMul(q, b.k, false, true)),
            3,
          ); // [B, H, T, S]
    const probs = dropout(
      scaledMaskedSoftmax(scores, bias, 1 / Math.sqrt(D)),
      this.config.dropout,
      drop?.tfSeed(),
    ) as tf.Tensor4D; // [B, H, T, S]
    const mixed =
      kv.length === 1
        ? tf.matMul(probs, kv[0].v)
        : tf.addN(
            tf
              .split(
                probs,
                kv.map((b) => b.k.shape[2]),
                3,
              )
              .map((p, i) => tf.matMul(p, kv[i].v)),
          ); // [B, H, T, D]
    const y = tf.reshape(tf.transpose(mixed, [0, 2, 1, 3]), [B, T, C]); // [B, T, C]
    const out = linear(y, this.p(`h${l}.attn.wo`), this.p(`h${l}.attn.bo`)) as tf.Tensor3D;
    return { out, kv, newKv };
  }

  private mlp(l: number, h: tf.Tensor): tf.Tensor3D {
    const up = gelu(linear(h, this.p(`h${l}.mlp.wfc`), this.p(`h${l}.mlp.bfc`))); // [B, T, 4C]
    return linear(up, this.p(`h${l}.mlp.wproj`), this.p(`h${l}.mlp.bproj`)) as tf.Tensor3D;
  }
}

function initParams(
  c: LmConfig,
  rng: Rng,
  prefix: string,
  weights?: ReadonlyMap<string, Float32Array>,
): Map<string, tf.Variable> {
  const params = new Map<string, tf.Variable>();
  const C = c.width;
  const F = c.mlpRatio * C;
  const residualStd = c.initStd / Math.sqrt(2 * c.layers); // GPT-2: residual projections scaled by 1/sqrt(2L)
  const add = (name: string, shape: number[], init: 'normal' | 'residual' | 'zeros' | 'ones') => {
    const n = shape.reduce((a, b) => a * b, 1);
    const given = weights?.get(name);
    if (weights && given?.length !== n)
      throw new Error(`TinyLm: weight ${name} needs ${n} values for shape [${shape}], got ${given?.length ?? 'none'}`);
    const values = given
      ? given
      : init === 'zeros'
        ? new Float32Array(n)
        : init === 'ones'
          ? new Float32Array(n).fill(1)
          : rng.fork(name).normalArray(n, init === 'residual' ? residualStd : c.initStd);
    params.set(name, variableFrom(tf.tensor(values, shape, 'float32'), true, uniqueVariableName(`${prefix}.${name}`)));
  };
  add('wte', [c.vocabSize, C], 'normal');
  if (c.positions === 'learned') add('wpe', [c.contextLength, C], 'normal');
  for (let l = 0; l < c.layers; l++) {
    add(`h${l}.ln1.g`, [C], 'ones');
    add(`h${l}.ln1.b`, [C], 'zeros');
    for (const w of ['q', 'k', 'v'] as const) {
      add(`h${l}.attn.w${w}`, [C, C], 'normal');
      add(`h${l}.attn.b${w}`, [C], 'zeros');
    }
    add(`h${l}.attn.wo`, [C, C], 'residual');
    add(`h${l}.attn.bo`, [C], 'zeros');
    add(`h${l}.ln2.g`, [C], 'ones');
    add(`h${l}.ln2.b`, [C], 'zeros');
    add(`h${l}.mlp.wfc`, [C, F], 'normal');
    add(`h${l}.mlp.bfc`, [F], 'zeros');
    add(`h${l}.mlp.wproj`, [F, C], 'residual');
    add(`h${l}.mlp.bproj`, [C], 'zeros');
  }
  add('lnf.g', [C], 'ones');
  add('lnf.b', [C], 'zeros');
  return params;
}

function defaultPositions(B: number, T: number, start: number, contextLength: number): tf.Tensor2D {
  if (start + T > contextLength) {
    throw new Error(`TinyLm.forward: positions ${start}..${start + T - 1} exceed contextLength ${contextLength}`);
  }
  return tf.tidy(() => tf.tile(tf.reshape(tf.range(start, start + T, 1, 'int32'), [1, T]), [B, 1]) as tf.Tensor2D);
}

function buildKeyMask(B: number, T: number, o: ForwardOptions): tf.Tensor2D {
  const parts: tf.Tensor2D[] = [];
  if (o.cache) parts.push(o.cache.keyMask);
  if (o.extraKV) parts.push(o.extraKV.mask ?? tf.ones([B, o.extraKV.layers[0].k.shape[2]]));
  parts.push(o.attentionMask ? tf.cast(o.attentionMask, 'float32') : tf.ones([B, T]));
  return (parts.length === 1 ? tf.clone(parts[0]) : tf.concat(parts, 1)) as tf.Tensor2D;
}

/** Additive bias [B, 1, T, S]: 0 where query t may see key s, −1e9 elsewhere. */
function attentionBias(keyMask: tf.Tensor2D, T: number): tf.Tensor4D {
  const [B, S] = keyMask.shape;
  const P = S - T; // prefix keys: all visible to every new position
  const causal = new Float32Array(T * S);
  for (let t = 0; t < T; t++) for (let s = 0; s < S; s++) causal[t * S + s] = s < P || s - P <= t ? 1 : 0;
  const allowed = tf.mul(tf.tensor(causal, [1, 1, T, S]), tf.reshape(keyMask, [B, 1, 1, S])); // [B, 1, T, S]
  return tf.mul(tf.sub(1, allowed), -1e9) as tf.Tensor4D;
}

function checkForwardShapes(c: LmConfig, embeds: tf.Tensor, o: ForwardOptions): void {
  if (embeds.rank !== 3 || embeds.shape[2] !== c.width)
    throw new Error(`TinyLm.forward: embeds must be [B, T, ${c.width}], got [${embeds.shape}]`);
  const [B, T] = embeds.shape;
  if (T === 0) throw new Error('TinyLm.forward: embeds has no positions (T = 0)');
  const D = c.width / c.heads;
  if (
    o.attentionMask &&
    (o.attentionMask.rank !== 2 || o.attentionMask.shape[0] !== B || o.attentionMask.shape[1] !== T)
  ) {
    throw new Error(`TinyLm.forward: attentionMask must be [${B}, ${T}], got [${o.attentionMask.shape}]`);
  }
  if (o.positions && (o.positions.shape[0] !== B || o.positions.shape[1] !== T || o.positions.dtype !== 'int32')) {
    throw new Error(
      `TinyLm.forward: positions must be int32 [${B}, ${T}], got ${o.positions.dtype} [${o.positions.shape}]`,
    );
  }
  checkKvShapes('TinyLm.forward', { B, H: c.heads, D, layers: c.layers }, o.cache, o.extraKV);
  if (o.extraKV?.mask && o.extraKV.mask.shape[0] !== B)
    throw new Error(`TinyLm.forward: extraKV.mask must be [${B}, S], got [${o.extraKV.mask.shape}]`);
}
