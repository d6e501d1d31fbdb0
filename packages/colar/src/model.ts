/**
 * CoLaR's forward pass (arXiv 2505.16552): the LM reads a row of input units — raw tokens,
 * compressed groups of c reasoning-token embeddings (compress.ts), or latent vectors fed back —
 * and the latent head (latent-head.ts) reads its last hidden state (after the final LayerNorm,
 * the LM head's input) to predict the next compressed embedding. It runs two ways:
 *   teacher-forced, whole rows at once (`unitsForward`): the SFT loss (loss.ts) and the GRPO
 *     log-probs of rollouts (grpo.ts);
 *   one input vector per row on the KV cache (`feed`): decoding (generate.ts).
 * Letters: B rows, S source tokens, U input positions, C width, V vocab.
 */
import * as tf from '@tensorflow/tfjs-core';
import { keepCache, tidy, type KvCache } from '@telepath/core';
import type { Pooling } from './config.js';
import { mergeEmbeddings, sourceIds, type RowLayout } from './compress.js';
import type { ColarState } from './state.js';

/**
 * The LM over whole rows of units (right-padded; padding masked): the rows' source tokens are
 * embedded, merged into their units (`pooling` for the groups) and run in one pass, over U = the
 * longest row's units or `width` columns.
 * → logits [B, U, V] and the last hidden state [B, U, C] (the latent head's input).
 */
export function unitsForward(
  s: ColarState,
  layouts: RowLayout[],
  pooling: Pooling,
  width?: number,
): { logits: tf.Tensor3D; hidden: tf.Tensor3D } {
  return tf.tidy(() => {
    const merged = mergeEmbeddings(s.lm.embed(sourceIds(layouts, s.tokenizer.padId)), layouts, pooling, width); // [B, U, C]
    const inputs = withSpeedVectors(s, layouts, merged); // [B, U, C]
    const [B, U] = inputs.shape;
    const attn = tf.tensor2d(
      layouts.flatMap((l) => Array.from({ length: U }, (_, i) => (i < l.units.length ? 1 : 0))),
      [B, U],
    );
    const out = s.lm.forward(inputs, { attentionMask: attn });
    return { logits: out.logits, hidden: out.hidden[out.hidden.length - 1] }; // [B, U, V], [B, U, C]
  });
}

/** The inputs of rows read with every position predicting the next: units 0..U−2 of each. */
export function inputsOf(layouts: RowLayout[]): RowLayout[] {
  return layouts.map((l) => ({ ...l, units: l.units.slice(0, -1) }));
}

/** Unit index of a row's opening ### (its first raw-token unit reading ###). */
export function openingUnit(layout: RowLayout, sepId: number): number {
  const u = layout.units.findIndex(
    (unit) => 'members' in unit && unit.members.length === 1 && layout.source[unit.members[0]] === sepId,
  );
  if (u < 0) throw new Error('colar: a row without its opening ### (the speed vector is added there)');
  return u;
}

/** Row c − 1 of the speed table, or a clear error when the table holds no speed c. */
function speedRow(table: tf.Variable, c: number): number {
  const speeds = table.shape[0];
  if (!Number.isInteger(c) || c < 1 || c > speeds)
    throw new Error(`colar: speed ${c} has no speed vector (this arm learnt speeds 1..${speeds})`);
  return c - 1;
}

/** The learnt vector of speed c: [1, C] (config.speedVector), or null for an arm without them. Call inside tf.tidy. */
export function speedVectorOf(s: ColarState, c: number): tf.Tensor2D | null {
  if (!s.speedTable) return null;
  return tf.slice(s.speedTable, [speedRow(s.speedTable, c), 0], [1, -1]) as tf.Tensor2D; // [1, C]
}

/** Inputs [B, U, C] with each row's speed vector added at its opening ### (unchanged without speed vectors). */
function withSpeedVectors(s: ColarState, layouts: RowLayout[], inputs: tf.Tensor3D): tf.Tensor3D {
  const table = s.speedTable;
  if (!table) return inputs;
  const U = inputs.shape[1];
  const rows = layouts.map((l, b) => {
    if (l.speed === undefined) throw new Error(`colar: row ${b} has no speed (needed for its speed vector)`);
    return speedRow(table, l.speed);
  });
  const at = tf.oneHot(
    tf.tensor1d(
      layouts.map((l) => openingUnit(l, s.tokenizer.sepId)),
      'int32',
    ),
    U,
  ); // [B, U]
  const vectors = tf.gather(table, tf.tensor1d(rows, 'int32')); // [B, C]
  return tf.add(inputs, tf.mul(tf.expandDims(tf.cast(at, 'float32'), 2), tf.expandDims(vectors, 1))) as tf.Tensor3D;
}

/**
 * The true next input at every position of rows read by `inputsOf` (units 1..U−1, merged from
 * the rows' own tokens) over `width` columns: [B, width, C].
 */
export function nextInputs(s: ColarState, layouts: RowLayout[], pooling: Pooling, width: number): tf.Tensor3D {
  return tf.tidy(() =>
    mergeEmbeddings(
      s.lm.embed(sourceIds(layouts, s.tokenizer.padId)),
      layouts.map((l) => ({ source: l.source, units: l.units.slice(1) })),
      pooling,
      width,
    ),
  );
}

/** What one decoding step leaves: the last hidden state, the logits and the cache after it. */
export interface Step {
  hidden: tf.Tensor2D; // [B, C] last hidden state (the head's input)
  logits: tf.Tensor2D; // [B, V]
  cache: KvCache;
}

/** Feed one input vector per row; rows with live[b] false are masked out of the cache. */
export function feed(s: ColarState, cache: KvCache, x: tf.Tensor3D, pos: number[], live: boolean[]): Step {
  const B = pos.length;
  return tidy(() => {
    const out = s.lm.forward(x, {
      cache,
      positions: tf.tensor2d(pos, [B, 1], 'int32'),
      attentionMask: tf.tensor2d(
        live.map((l) => (l ? 1 : 0)),
        [B, 1],
      ),
    });
    return {
      hidden: tf.reshape(out.hidden[out.hidden.length - 1], [B, -1]) as tf.Tensor2D,
      logits: tf.reshape(out.logits, [B, -1]) as tf.Tensor2D,
      cache: keepCache(out.cache),
    };
  });
}

/** The opening ### of B rows at speed c as input: embed(###) plus the speed vector, [B, 1, C]. */
export function openingInputs(s: ColarState, B: number, c: number): tf.Tensor3D {
  return tf.tidy(() => {
    const sep = embedIds(s, new Array<number>(B).fill(s.tokenizer.sepId)); // [B, 1, C]
    const v = speedVectorOf(s, c);
    return v ? (tf.add(sep, v) as tf.Tensor3D) : sep;
  });
}

/** Token embeddings of one id per row: [B, 1, C]. */
export function embedIds(s: ColarState, ids: number[]): tf.Tensor3D {
  return tf.tidy(() => s.lm.embed(tf.tensor2d(ids, [ids.length, 1], 'int32')));
}
