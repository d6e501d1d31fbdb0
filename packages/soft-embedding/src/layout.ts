/**
 * Batches whose latent slots sit in the same columns for every row. Each row is
 *   prefix (prompt, and <bot> for continuous thought) · K_b latent slots · suffix
 * The prefixes are left-padded to a common length P, so latent slot k is column P + k in every
 * row (as Coconut's collator aligns the first latent across a batch); suffixes are right-padded.
 * Position ids count from each row's first real token, and padding is masked, so a row computes
 * exactly what it would alone. Slots hold the `<latent>` id until a method replaces their
 * embeddings. For training, P and T are rounded up with core's `paddedWidth` (more left and right
 * padding), so batches come in few shapes and the native buffer pool reuses their buffers (a
 * Coconut step ≈ 0.91× the time; `bench/step.bench.ts`, docs/engineering-notes.md).
 * Letters: B batch, T columns, K latent slots.
 */
import * as tf from '@tensorflow/tfjs-core';
import { paddedWidth } from '@telepath/core';

export interface AlignedRow {
  prefix: number[];
  /** Latent slots right after the prefix. */
  latents: number;
  /** What follows the latents; tokens of trained segments are targets of the LM loss. */
  suffix: { ids: number[]; trained: boolean }[];
}

export interface AlignedBatch {
  ids: tf.Tensor2D; // [B, T] input ids; latent slots hold <latent>, padding <pad>
  attentionMask: tf.Tensor2D; // [B, T] 1 on real inputs
  positions: tf.Tensor2D; // [B, T] int32
  /** Teacher forcing only: next tokens [B, T] and where they are trained [B, T]. */
  targets?: tf.Tensor2D;
  lossMask?: tf.Tensor2D;
  /** Column of latent slot 0 (P). */
  latentStart: number;
  /** K_b per row. */
  latentCounts: number[];
  /** Position id that follows each row's last input (for decoding after the batch). */
  nextPositions: number[];
}

export interface AlignOptions {
  padId: number;
  latentId: number;
  contextLength: number;
  /** true: inputs are each sequence minus its last token, with targets (training); false: whole sequences (generation). */
  teacherForcing: boolean;
}

/** Builds an aligned batch; throws if a row needs more positions than the context has. */
export function alignBatch(rows: AlignedRow[], o: AlignOptions): AlignedBatch {
  if (rows.length === 0) throw new Error('alignBatch: no rows');
  const widest = Math.max(...rows.map((r) => r.prefix.length));
  const P = o.teacherForcing ? paddedWidth(widest, o.contextLength) : widest;
  const seqs = rows.map((r) => {
    const ids = [...r.prefix, ...new Array<number>(r.latents).fill(o.latentId)];
    const trained = new Array<boolean>(ids.length).fill(false);
    for (const s of r.suffix)
      for (const id of s.ids) {
        ids.push(id);
        trained.push(s.trained);
      }
    if (ids.length > o.contextLength)
      throw new Error(
        `alignBatch: a sequence of ${ids.length} positions exceeds the context length ${o.contextLength}`,
      );
    return { ids, trained, pad: P - r.prefix.length };
  });
  const inputs = seqs.map((s) => (o.teacherForcing ? s.ids.length - 1 : s.ids.length));
  const reach = Math.max(...seqs.map((s, b) => s.pad + inputs[b]));
  const T = o.teacherForcing ? paddedWidth(reach, o.contextLength) : reach;
  if (!o.teacherForcing && seqs.some((s, b) => s.pad + inputs[b] !== T)) {
    throw new Error(
      'alignBatch: for generation every row must end in the same column (same latent count and suffix length)',
    );
  }
  const B = rows.length;
  const ids = new Int32Array(B * T).fill(o.padId);
  const attn = new Float32Array(B * T);
  const pos = new Int32Array(B * T);
  const targets = new Int32Array(B * T).fill(o.padId);
  const lossMask = new Float32Array(B * T);
  seqs.forEach((s, b) => {
    for (let i = 0; i < inputs[b]; i++) {
      const t = b * T + s.pad + i;
      ids[t] = s.ids[i];
      attn[t] = 1;
      pos[t] = i;
      if (o.teacherForcing) {
        targets[t] = s.ids[i + 1];
        lossMask[t] = s.trained[i + 1] ? 1 : 0;
      }
    }
  });
  return {
    ids: tf.tensor2d(ids, [B, T], 'int32'),
    attentionMask: tf.tensor2d(attn, [B, T]),
    positions: tf.tensor2d(pos, [B, T], 'int32'),
    ...(o.teacherForcing
      ? { targets: tf.tensor2d(targets, [B, T], 'int32'), lossMask: tf.tensor2d(lossMask, [B, T]) }
      : {}),
    latentStart: P,
    latentCounts: rows.map((r) => r.latents),
    nextPositions: inputs,
  };
}

export function disposeAligned(b: AlignedBatch): void {
  tf.dispose([
    b.ids,
    b.attentionMask,
    b.positions,
    ...(b.targets ? [b.targets] : []),
    ...(b.lossMask ? [b.lossMask] : []),
  ]);
}
