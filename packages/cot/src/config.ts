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
}

export const DEFAULT_COT_CONFIG: CotConfig = {
  variant: 'cot',
  steps: 1000, // chosen: enough for the quickstart's Countdown-3 models to converge here
  maxNewTokens: 64, // chosen: Countdown-3 CoT is ≈ 20 tokens, GSM8K equation chains ≈ 40
};

export const COT_VARIANTS: readonly CotVariant[] = ['cot', 'no-cot'];
