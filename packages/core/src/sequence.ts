/**
 * How an `Example` becomes token ids, the one layout every method shares:
 *   prompt    = <bos> question "\n"
 *   reasoning = steps joined by "\n", then "\n"          (CoT only)
 *   latents   = <bot> K × <latent> <eot>                  (latent methods; vectors replace <latent>)
 *   answer    = ### " " answer <eos>
 * Tasks decide what the question, step and answer strings say; methods decide which of the
 * parts they use; the lab scores the text after the last ###. Letters: B batch, T tokens.
 */
import { existsSync } from 'node:fs';
import * as tf from '@tensorflow/tfjs-core';
import type { Example } from './method.js';
import { Tokenizer, type BuildOptions } from './tokenizer.js';

export interface EncodedExample {
  prompt: number[];
  reasoning: number[];
  /** ### answer <eos> */
  answer: number[];
}

export function encodeExample(tok: Tokenizer, ex: Example): EncodedExample {
  return {
    prompt: [tok.bosId, ...tok.encode(`${ex.question}\n`)],
    reasoning: ex.steps.length ? tok.encode(`${ex.steps.join('\n')}\n`) : [],
    answer: [tok.sepId, ...tok.encode(` ${ex.answer}`), tok.eosId],
  };
}

/**
 * Teacher-forcing segments of the No-CoT / CoT references (standard supervised fine-tuning): the
 * prompt is context; CoT trains `steps ### answer <eos>`, No-CoT `### answer <eos>`.
 */
export function referenceSegments(tok: Tokenizer, ex: Example, withReasoning: boolean): Segment[] {
  const e = encodeExample(tok, ex);
  return withReasoning
    ? [
        { ids: e.prompt, trained: false },
        { ids: e.reasoning, trained: true },
        { ids: e.answer, trained: true },
      ]
    : [
        { ids: e.prompt, trained: false },
        { ids: e.answer, trained: true },
      ];
}

/** Every text a tokenizer should be built from, for a training split. */
export function exampleTexts(examples: Iterable<Example>): string[] {
  const out: string[] = [];
  for (const ex of examples) out.push(`${ex.question}\n`, `${ex.steps.join('\n')}\n`, ` ${ex.answer}`);
  return out;
}

/**
 * A run's tokenizer: read from `file` when the run already saved one (a resumed run keeps its
 * vocabulary), else built from the training split's texts with `options` and saved there.
 */
export async function runTokenizer(
  file: string,
  train: Iterable<Example>,
  options: BuildOptions = {},
): Promise<Tokenizer> {
  if (existsSync(file)) return Tokenizer.load(file);
  const tokenizer = Tokenizer.build(exampleTexts(train), options);
  await tokenizer.save(file);
  return tokenizer;
}

export interface PackedBatch {
  ids: tf.Tensor2D; // [B, T] inputs (right-padded with <pad>)
  targets: tf.Tensor2D; // [B, T] next tokens
  lossMask: tf.Tensor2D; // [B, T] the target's loss weight (1 where trained at full weight, 0 for context)
  attentionMask: tf.Tensor2D; // [B, T] 1 on real tokens
  lengths: number[];
  /** The sum of lossMask (the count of trained targets when every weight is 1), on the host. */
  trainedTargets: number;
}

/**
 * One run of tokens in a teacher-forcing row: trained (its tokens are targets) or context. A
 * trained segment's tokens count `weight` times each in the loss's token mean (default 1).
 */
export interface Segment {
  ids: number[];
  trained: boolean;
  weight?: number;
}

/**
 * The width a batch whose longest row has `longest` positions is padded to, within a context
 * length: rounded up to a multiple of 1/8 of the power of two at or below it (…, 8 for 64–127,
 * 16 for 128–255, 32 for 256–511), at most `context` (never below `longest`: a longer row keeps
 * its width, for the caller's own context check to name), so at most 12.5 % more positions. Batches
 * of varying length then come in 8 widths per doubling, and the native backend's buffer pool
 * reuses their buffers instead of allocating fresh ones every step: a 4-layer, width-128 step on
 * 16 rows of 200–450 tokens in 4 length groups took 4.2–4.9 s instead of 5.1–6.0 s at the exact
 * width (two runs of each, alternating, one thread beside two training runs; a fixed multiple of 32
 * gave 4.4–4.8 s in four earlier runs;
 * `packages/core/bench/pad-width.bench.ts`). Padding is masked, so the loss is unchanged and the
 * gradients differ only in summation order.
 */
export function paddedWidth(longest: number, context: number): number {
  const step = Math.max(1, 2 ** (Math.floor(Math.log2(Math.max(longest, 1))) - 3));
  return Math.max(longest, Math.min(Math.ceil(longest / step) * step, context));
}

/**
 * Right-padded teacher-forcing batch from segments per row; row r's input is its concatenation
 * minus the last token. `lossMask` holds each target's weight (0 for context) and
 * `trainedTargets` their sum, so the masked mean is Σ w·loss / Σ w. With `maxLength` (the LM's
 * context length) the width is rounded up (`paddedWidth`), at most `maxLength`.
 */
export function packSegments(rows: Segment[][], padId: number, maxLength?: number): PackedBatch {
  const seqs = rows.map((segs) => {
    const ids: number[] = [];
    const weights: number[] = [];
    for (const s of segs) {
      const w = s.trained ? (s.weight ?? 1) : 0;
      if (!(Number.isFinite(w) && w >= 0))
        throw new Error(`packSegments: a segment's weight must be a finite number ≥ 0, got ${s.weight}`);
      for (const id of s.ids) {
        ids.push(id);
        weights.push(w);
      }
    }
    return { ids, weights };
  });
  const longest = Math.max(...seqs.map((s) => s.ids.length)) - 1;
  if (maxLength !== undefined && longest > maxLength)
    throw new Error(`packSegments: a sequence of ${longest + 1} tokens exceeds the context length ${maxLength + 1}`);
  const T = maxLength === undefined ? longest : paddedWidth(longest, maxLength);
  const B = rows.length;
  const ids = new Int32Array(B * T).fill(padId);
  const targets = new Int32Array(B * T).fill(padId);
  const lossMask = new Float32Array(B * T);
  const attn = new Float32Array(B * T);
  let trainedTargets = 0;
  seqs.forEach((s, b) => {
    for (let t = 0; t < s.ids.length - 1; t++) {
      ids[b * T + t] = s.ids[t];
      targets[b * T + t] = s.ids[t + 1];
      lossMask[b * T + t] = s.weights[t + 1];
      trainedTargets += lossMask[b * T + t];
      attn[b * T + t] = 1;
    }
  });
  return {
    ids: tf.tensor2d(ids, [B, T], 'int32'),
    targets: tf.tensor2d(targets, [B, T], 'int32'),
    lossMask: tf.tensor2d(lossMask, [B, T]),
    attentionMask: tf.tensor2d(attn, [B, T]),
    lengths: seqs.map((s) => s.ids.length),
    trainedTargets,
  };
}

/**
 * Left-padded layout of id rows (prefill): flat [B·T] ids, the attention mask (1 on real tokens)
 * and position ids counted from each row's first real token. `leading` slots per row (e.g. prefix
 * embeddings placed before the tokens) come first in `mask` and `positions` (mask 1, position 0),
 * not in `ids`. `width` (at least the longest row) pads to that many columns instead of the
 * longest row's.
 */
export function leftPadRows(
  rows: readonly (readonly number[])[],
  padId: number,
  leading = 0,
  width?: number,
): { ids: number[]; mask: number[]; positions: number[]; T: number } {
  const longest = Math.max(...rows.map((r) => r.length));
  if (width !== undefined && !(Number.isInteger(width) && width >= longest))
    throw new Error(`leftPadRows: width must be an integer ≥ the longest row (${longest}), got ${width}`);
  const T = width ?? longest;
  const ids: number[] = [];
  const mask: number[] = [];
  const positions: number[] = [];
  for (const r of rows) {
    const pad = T - r.length;
    for (let i = 0; i < leading; i++) {
      mask.push(1);
      positions.push(0);
    }
    for (let t = 0; t < T; t++) {
      ids.push(t < pad ? padId : r[t - pad]);
      mask.push(t < pad ? 0 : 1);
      positions.push(Math.max(0, t - pad));
    }
  }
  return { ids, mask, positions, T };
}

/** The answer text of generated ids: what follows the last ### up to <eos>, specials dropped. */
export function answerFromIds(
  tok: Tokenizer,
  ids: number[],
): { answer: string; reasoningTokens: number; sawSeparator: boolean } {
  const sep = ids.lastIndexOf(tok.sepId);
  const firstSep = ids.indexOf(tok.sepId);
  const end = ids.indexOf(tok.eosId, sep + 1);
  const answerIds = sep < 0 ? [] : ids.slice(sep + 1, end < 0 ? ids.length : end);
  return {
    answer: tok.decode(answerIds, { skipSpecial: true }).trim(),
    reasoningTokens: firstSep < 0 ? ids.filter((i) => i !== tok.eosId).length : firstSep,
    sawSeparator: sep >= 0,
  };
}
