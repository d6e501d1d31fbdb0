/**
 * A Hugging Face GPT-2 `config.json` as core's `LmConfig`. GPT-2 is the architecture `TinyLm`
 * already has (Radford et al. 2019, §2.3: learned positions, pre-LayerNorm, a final LayerNorm,
 * tied output embedding; the tanh GELU `gelu_new`; biases on every projection); this reads the
 * sizes and the LayerNorm epsilon, and refuses options `TinyLm` does not implement by name.
 */
import { lmConfig, type LmConfig } from './tiny-lm.js';

/** The keys of config.json that Telepath reads (others are kept and written back unchanged). */
export interface Gpt2HfConfig {
  vocab_size: number;
  n_positions: number;
  n_embd: number;
  n_layer: number;
  n_head: number;
  n_inner?: number | null;
  activation_function?: string;
  layer_norm_epsilon?: number;
  resid_pdrop?: number;
  [key: string]: unknown;
}

/** Activations equal to TinyLm's tanh GELU. */
const TANH_GELU = ['gelu_new', 'gelu_pytorch_tanh'];

export function lmConfigFromGpt2(json: unknown, file: string): { hf: Gpt2HfConfig; lm: LmConfig } {
  if (json === null || typeof json !== 'object' || Array.isArray(json))
    throw new Error(`${file}: expected a JSON object`);
  const hf = json as Gpt2HfConfig;
  if (hf.model_type !== undefined && hf.model_type !== 'gpt2')
    throw new Error(`${file}: model_type is "${String(hf.model_type)}", Telepath loads "gpt2" checkpoints`);
  for (const key of ['vocab_size', 'n_positions', 'n_embd', 'n_layer', 'n_head'] as const) {
    if (!Number.isInteger(hf[key]) || hf[key] <= 0)
      throw new Error(`${file}: "${key}" must be a positive integer, got ${JSON.stringify(hf[key])}`);
  }
  const activation = hf.activation_function ?? 'gelu_new';
  if (!TANH_GELU.includes(activation))
    throw new Error(
      `${file}: activation_function "${activation}" is not supported (Telepath's GPT-2 uses the tanh GELU: ${TANH_GELU.join(' or ')})`,
    );
  const refuse = (key: string, wanted: unknown) => {
    if (hf[key] !== undefined && hf[key] !== wanted)
      throw new Error(
        `${file}: "${key}" must be ${JSON.stringify(wanted)} (the only setting Telepath implements), got ${JSON.stringify(hf[key])}`,
      );
  };
  refuse('scale_attn_weights', true);
  refuse('scale_attn_by_inverse_layer_idx', false);
  refuse('tie_word_embeddings', true);
  refuse('add_cross_attention', false);
  const inner = hf.n_inner ?? 4 * hf.n_embd;
  if (!Number.isInteger(inner / hf.n_embd))
    throw new Error(`${file}: n_inner ${inner} must be a multiple of n_embd ${hf.n_embd}`);
  const eps = hf.layer_norm_epsilon ?? 1e-5;
  if (typeof eps !== 'number' || !(eps > 0))
    throw new Error(`${file}: layer_norm_epsilon must be a positive number, got ${JSON.stringify(eps)}`);
  const dropout = hf.resid_pdrop ?? 0.1;
  const lm = lmConfig({
    vocabSize: hf.vocab_size,
    contextLength: hf.n_positions,
    positions: 'learned',
    layers: hf.n_layer,
    heads: hf.n_head,
    width: hf.n_embd,
    mlpRatio: inner / hf.n_embd,
    dropout,
    layerNormEps: eps,
    initStd: typeof hf.initializer_range === 'number' ? hf.initializer_range : 0.02,
  });
  return { hf, lm };
}

/** config.json for an LM saved in Hugging Face's layout: the source's keys, sizes from `lm`. */
export function gpt2ConfigFor(lm: LmConfig, source: Partial<Gpt2HfConfig> = {}): Gpt2HfConfig {
  if (lm.positions !== 'learned')
    throw new Error('gpt2ConfigFor: a GPT-2 checkpoint has learned positions; this LM uses rotary ones');
  return {
    activation_function: 'gelu_new',
    architectures: ['GPT2LMHeadModel'],
    model_type: 'gpt2',
    ...source,
    vocab_size: lm.vocabSize,
    n_positions: lm.contextLength,
    n_ctx: lm.contextLength,
    n_embd: lm.width,
    n_layer: lm.layers,
    n_head: lm.heads,
    n_inner: lm.mlpRatio === 4 ? null : lm.mlpRatio * lm.width,
    layer_norm_epsilon: lm.layerNormEps,
    tie_word_embeddings: true,
    torch_dtype: 'float32',
  };
}
