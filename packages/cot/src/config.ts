/**
 * Config of the No-CoT and CoT references. Both train the whole LM with the next-token loss
 * on everything after the prompt: No-CoT on `### answer`, CoT on `steps ### answer`
 * (standard supervised fine-tuning; the latent papers' baselines, e.g. Coconut §4.1 and CoLaR
 * §4, train them the same way).
 */
export type CotVariant = 'cot' | 'no-cot';

export interface CotConfig {
  variant: CotVariant;
  /** Training steps of the single 'sft' phase. */
  steps: number;
  /** Longest generation; CoT needs room for the steps and the answer. */
  maxNewTokens: number;
  /**
   * Length buckets per training batch: the rows, sorted by length, are cut into this many groups,
   * each padded only to its own longest row and run through the LM on its own. The loss is the
   * same token mean as one padded batch (each group weighted by its share of the trained tokens),
   * so only the time changes: it pays where lengths vary, e.g. search traces (loss.ts).
   */
  lengthBuckets: number;
  /**
   * Loss weight of each question token (the prompt after <bos>), relative to a trained token of
   * the reasoning or answer. 0 keeps the question as context only (standard SFT); > 0 adds
   * next-token prediction on the question, so the model is also trained to read it.
   */
  promptLossWeight: number;
}

export const DEFAULT_COT_CONFIG: CotConfig = {
  variant: 'cot',
  steps: 1000, // chosen: enough for the quickstart's Countdown-3 models to converge here
  maxNewTokens: 64, // chosen: Countdown-3 CoT is ≈ 20 tokens, GSM8K equation chains ≈ 40
  lengthBuckets: 1, // one padded batch, as every recorded run was trained
  promptLossWeight: 0, // the papers' baselines: the question is context, not a target
};

export const COT_VARIANTS: readonly CotVariant[] = ['cot', 'no-cot'];
