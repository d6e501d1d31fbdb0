/**
 * Decoding wall time of several trained arms on the same questions, measured in one process and
 * interleaved batch by batch (the arms' order rotating with the batch), so that a machine's load
 * falls on every arm alike: CoLaR claims faster decoding than CoT through shorter latent chains
 * (Tan et al. 2025, arXiv 2505.16552, "Think Silently, Think Fast"), which times measured in
 * separate runs cannot show on a shared machine.
 * Each arm decodes one untimed batch first (allocation and first-call costs). The ratio of an
 * arm's time to the first arm's has a 95 % percentile interval from a bootstrap over the batches.
 */
import { Rng, type Example, type GenerateOptions, type Generation } from '@telepath/core';
import { quantile, Resampler } from '../reports/bootstrap.js';
import { Progress } from '../running/progress.js';

export interface TimedArm {
  label: string;
  generate: (batch: Example[], o: GenerateOptions) => Promise<Generation[]>;
  settings: { maxNewTokens: number; temperature: number; topP: number };
}

export interface DecodeTimeRow {
  label: string;
  msPerExample: number;
  /** Mean reasoning positions per question (tokens or latents). */
  reasoningLength: number;
  /** This arm's total decoding time over the first arm's, with its 95 % bootstrap interval over batches. */
  ratio: { value: number; lo: number; hi: number };
}

export interface DecodeTimeResult {
  questions: number;
  batches: number;
  batchSize: number;
  rows: DecodeTimeRow[];
}

export async function timeDecoding(
  arms: TimedArm[],
  examples: Example[],
  o: {
    batchSize: number;
    seed: number;
    quiet?: boolean;
    shouldStop?: () => boolean;
    /** Milliseconds now (default performance.now; tests pass a clock the arms advance). */
    clock?: () => number;
  },
): Promise<DecodeTimeResult | 'interrupted'> {
  if (arms.length === 0) throw new Error('timeDecoding: no arms to time');
  if (examples.length === 0) throw new Error('timeDecoding: no questions to decode');
  const batches: Example[][] = [];
  for (let i = 0; i < examples.length; i += o.batchSize) batches.push(examples.slice(i, i + o.batchSize));
  const rng = new Rng(o.seed).fork('decode-time');
  const clock = o.clock ?? (() => performance.now());
  const options = (arm: TimedArm, b: number): GenerateOptions => ({ ...arm.settings, rng: rng.fork(`batch/${b}`) });
  for (const arm of arms) await arm.generate(batches[0], options(arm, 0)); // untimed warm-up
  const ms = arms.map(() => new Float64Array(batches.length)); // [arm][batch]
  const lengths = arms.map(() => 0);
  const progress = o.quiet ? undefined : new Progress('decode-time', batches.length);
  for (let b = 0; b < batches.length; b++) {
    if (o.shouldStop?.()) return 'interrupted';
    for (let k = 0; k < arms.length; k++) {
      const a = (b + k) % arms.length;
      const t0 = clock();
      const gens = await arms[a].generate(batches[b], options(arms[a], b));
      ms[a][b] = clock() - t0;
      lengths[a] += gens.reduce((s, g) => s + g.reasoningLength, 0);
    }
    progress?.update(b + 1);
  }
  const draws = new Resampler(rng.fork('bootstrap')).questions(batches.length);
  const total = (t: Float64Array, w?: Uint32Array) => t.reduce((s, x, i) => s + x * (w ? w[i] : 1), 0);
  const rows = arms.map((arm, a) => {
    const drawn = draws.map((w) => total(ms[a], w) / total(ms[0], w)).sort((x, y) => x - y);
    return {
      label: arm.label,
      msPerExample: total(ms[a]) / examples.length,
      reasoningLength: lengths[a] / examples.length,
      ratio: { value: total(ms[a]) / total(ms[0]), lo: quantile(drawn, 0.025), hi: quantile(drawn, 0.975) },
    };
  });
  return { questions: examples.length, batches: batches.length, batchSize: o.batchSize, rows };
}
