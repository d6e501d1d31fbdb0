/**
 * How an Example becomes token text for each family of methods (issue 3 "Sequences"), the same
 * for every task because every task shares the Example schema. It is the text form of core's
 * layout (core/src/sequence.ts: prompt, reasoning, latents, "### answer"; core adds <bos>/<eos>
 * when it encodes ids):
 *   No-CoT:  prompt "question\n"                               completion "### answer"
 *   CoT:     prompt "question\n"                               completion "step1\nstep2\n### answer"
 *   latent:  prompt "question\n<bot><latent>×K<eot>"           completion "remaining steps\n### answer"
 * `###` (core SPECIAL_TOKENS.sep) separates reasoning from the answer; `<bot>`/`<eot>` delimit the
 * latent span and each `<latent>` is a position a latent method fills with a vector (Coconut's
 * continuous thoughts). In the latent form the first `stepsReplaced` steps are dropped, as in a
 * Coconut curriculum stage (all of them by default); K defaults to one latent per replaced step.
 * Steps are one per line, so a step must not contain a newline (GSM-Hard's code steps do; those
 * sets are for answer-only evaluation).
 */
import { SPECIAL_TOKENS } from '@telepath/core';
import type { Example } from './example.js';

export type SequenceMode = 'no-cot' | 'cot' | 'latent';
export const SEQUENCE_MODES: readonly SequenceMode[] = ['no-cot', 'cot', 'latent'];

export interface Sequence {
  /** What the model is conditioned on at evaluation time. */
  prompt: string;
  /** What it is trained to produce (and what generation should reproduce). */
  completion: string;
}

export interface LatentOptions {
  /** Number of `<latent>` slots K; default = stepsReplaced. */
  latents?: number;
  /** How many leading steps the latent span replaces; default = all. */
  stepsReplaced?: number;
}

const { sep, bot, eot, latent } = SPECIAL_TOKENS;

function answerPart(ex: Example): string {
  return `${sep} ${ex.answer}`;
}

function stepLines(steps: readonly string[], id: string): string {
  for (const s of steps)
    if (s.includes('\n')) throw new Error(`${id}: a step contains a newline; steps are written one per line`);
  return steps.map((s) => `${s}\n`).join('');
}

export function noCotSequence(ex: Example): Sequence {
  return { prompt: `${ex.question}\n`, completion: answerPart(ex) };
}

export function cotSequence(ex: Example): Sequence {
  return { prompt: `${ex.question}\n`, completion: stepLines(ex.steps, ex.id) + answerPart(ex) };
}

export function latentSequence(ex: Example, o: LatentOptions = {}): Sequence {
  const replaced = o.stepsReplaced ?? ex.steps.length;
  if (!Number.isInteger(replaced) || replaced < 0)
    throw new Error(`latentSequence: stepsReplaced must be a non-negative integer, got ${replaced}`);
  const k = o.latents ?? Math.min(replaced, ex.steps.length);
  if (!Number.isInteger(k) || k < 0)
    throw new Error(`latentSequence: latents must be a non-negative integer, got ${k}`);
  return {
    prompt: `${ex.question}\n${bot}${latent.repeat(k)}${eot}`,
    completion: stepLines(ex.steps.slice(replaced), ex.id) + answerPart(ex),
  };
}

export function toSequence(ex: Example, mode: SequenceMode, o: LatentOptions = {}): Sequence {
  switch (mode) {
    case 'no-cot':
      return noCotSequence(ex);
    case 'cot':
      return cotSequence(ex);
    case 'latent':
      return latentSequence(ex, o);
    default:
      throw new Error(`Unknown sequence mode "${mode as string}". Expected one of: ${SEQUENCE_MODES.join(', ')}`);
  }
}

/** prompt + completion. */
export function sequenceText(s: Sequence): string {
  return s.prompt + s.completion;
}
