/**
 * Generation and latent traces. Both variants build an aligned prefix batch, fill the N_L latent
 * slots, then continue with core's `decode` from the resulting cache (greedy or sampled):
 *   soft tokens:         <bos> question \n · N_L soft tokens            → decode (### answer …)
 *   continuous thought:  <bos> question \n <bot> · N_L thoughts · <eot> → decode
 *     (Coconut arXiv 2412.06769 v1 §3, inference: the thoughts are produced, then <eot> is fed).
 * A latent control (core's applyLatentControl) replaces the latents the slots receive: for soft
 * tokens the tiled soft tokens, for continuous thought the produced thoughts (all K at once, then
 * the slots and <eot> are recomputed from the prompt's cache). Soft tokens are the same vectors
 * for every example, so 'shuffle' leaves them unchanged by construction.
 * Letters: B batch, T columns, K latent slots (N_L), C width, V vocab.
 */
import * as tf from '@tensorflow/tfjs-core';
import {
  applyLatentControl,
  decodeGenerations,
  disposeCache,
  encodeExample,
  Rng,
  tidy,
  traceInChunks,
  type Example,
  type GenerateOptions,
  type Generation,
  type KvCache,
  type LatentControl,
  type LatentTrace,
} from '@telepath/core';
import { stageLayout, stageOfPhase } from './curriculum.js';
import { alignBatch, disposeAligned, type AlignedBatch, type AlignedRow } from './layout.js';
import { continuousForward, softTokenForward } from './model.js';
import type { SoftEmbeddingState } from './state.js';

export interface LatentRun {
  cache: KvCache;
  lastLogits: tf.Tensor2D; // [B, V] at the last prefix column
  nextPositions: number[];
  /** The latents before any control: soft tokens tiled, or the produced thoughts. [B, K, C] */
  latents: tf.Tensor3D;
  /** What the slots received (after the control). [B, K, C] */
  fed: tf.Tensor3D;
  /** soft-tokens only: last hidden state (after the final LayerNorm) at each slot. [B, K, C] */
  slotHidden?: tf.Tensor3D;
}

/**
 * Latent slots when decoding as the arm does in training phase `phase`: continuous thought at
 * stage s uses that stage's thoughts (curriculum.ts, stageLayout); soft tokens and the finished arm
 * (no phase) use all N_L.
 */
export function slotsAt(s: SoftEmbeddingState, phase?: string): number {
  if (phase === undefined || s.config.variant !== 'continuous-thought') return s.config.latentTokens;
  return stageLayout(stageOfPhase(phase), 0, s.config).thoughts;
}

function prefixRows(s: SoftEmbeddingState, batch: Example[], K: number): AlignedRow[] {
  const tok = s.tokenizer;
  return batch.map((ex) => {
    const prompt = encodeExample(tok, ex).prompt;
    return s.config.variant === 'soft-tokens'
      ? { prefix: prompt, latents: K, suffix: [] }
      : { prefix: [...prompt, tok.id('bot')], latents: K, suffix: [{ ids: [tok.id('eot')], trained: false }] };
  });
}

/** Columns [from, from + n) of a [B, T, C] tensor. */
function slotCols(t: tf.Tensor3D, from: number, n: number): tf.Tensor3D {
  const [B, , C] = t.shape;
  return tf.slice(t, [0, from, 0], [B, n, C]);
}

/** Runs the prompt and K latent slots (N_L unless told); the caller disposes the result (disposeRun). */
export function runLatents(
  s: SoftEmbeddingState,
  batch: Example[],
  control: LatentControl,
  rng: Rng,
  K = s.config.latentTokens,
): LatentRun {
  const tok = s.tokenizer;
  const b: AlignedBatch = alignBatch(prefixRows(s, batch, K), {
    padId: tok.padId,
    latentId: tok.id('latent'),
    contextLength: s.lm.config.contextLength,
    teacherForcing: false,
  });
  try {
    return tidy(() => {
      const P = b.latentStart;
      const ctl = (z: tf.Tensor3D) => applyLatentControl(z, control, rng);
      if (s.config.variant === 'soft-tokens') {
        const latents = tf.tile(tf.expandDims(s.soft!, 0), [batch.length, 1, 1]) as tf.Tensor3D; // [B, K, C]
        const fed = ctl(latents);
        const out = softTokenForward(s.lm, b, fed);
        const h = out.hidden[out.hidden.length - 1]; // [B, T, C]
        return {
          cache: out.cache,
          lastLogits: lastColumn(out.logits),
          nextPositions: b.nextPositions,
          latents,
          fed,
          slotHidden: slotCols(h, P, K),
        };
      }
      const out = continuousForward(s.lm, b, control === 'none' ? {} : { replace: ctl });
      return {
        cache: out.cache,
        lastLogits: lastColumn(out.logits),
        nextPositions: b.nextPositions,
        latents: out.thoughts,
        fed: out.fed,
      };
    });
  } finally {
    disposeAligned(b);
  }
}

function lastColumn(logits: tf.Tensor3D): tf.Tensor2D {
  const [B, T, V] = logits.shape;
  return tf.reshape(tf.slice(logits, [0, T - 1, 0], [B, 1, V]), [B, V]);
}

/** Disposes a run; `keepCache` leaves the cache and the last logits to the caller (for decode). */
export function disposeRun(r: LatentRun, o: { keepCache?: boolean } = {}): void {
  tf.dispose([r.latents, r.fed, ...(r.slotHidden ? [r.slotHidden] : [])]);
  if (!o.keepCache) {
    r.lastLogits.dispose();
    disposeCache(r.cache);
  }
}

export async function generateAnswers(
  s: SoftEmbeddingState,
  batch: Example[],
  o: GenerateOptions,
): Promise<Generation[]> {
  const K = slotsAt(s, o.phase);
  const run = runLatents(s, batch, o.control ?? 'none', o.rng.fork('control'), K);
  disposeRun(run, { keepCache: true });
  return decodeGenerations(
    s.lm,
    s.tokenizer,
    batch,
    { cache: run.cache, lastLogits: run.lastLogits, positions: run.nextPositions },
    {
      maxNewTokens: o.maxNewTokens || s.config.maxNewTokens,
      temperature: o.temperature,
      topP: o.topP,
      rng: o.rng.fork('sample'),
      forced: [],
      latents: K,
    },
  );
}

/**
 * The latent vectors for @telepath/analysis, one slot per latent position over the examples:
 * continuous thought: the thoughts fed to the slots (thought k = last hidden state before slot k);
 * soft tokens: the last hidden state at each soft-token slot (the soft tokens themselves are the
 * same for every example, so their example-dependent counterpart is the state they produce).
 * One asynchronous read per chunk.
 */
export async function traceLatents(s: SoftEmbeddingState, examples: Example[], chunk = 64): Promise<LatentTrace> {
  const soft = s.config.variant === 'soft-tokens';
  const slotNames = Array.from({ length: s.config.latentTokens }, (_, k) => `${soft ? 'soft' : 'thought'}${k + 1}`);
  return traceInChunks(
    examples,
    { source: soft ? 'soft-tokens/slot-hidden' : 'continuous-thought', slotNames, width: s.lm.config.width, chunk },
    async (part) => {
      const run = runLatents(s, part, 'none', new Rng(0)); // 'none' draws nothing
      try {
        return (await (run.slotHidden ?? run.latents).data()) as Float32Array; // [b, K, C]
      } finally {
        disposeRun(run);
      }
    },
  );
}
