/**
 * Hugging Face GPT-2 checkpoints (a folder with config.json, model.safetensors and the tokenizer
 * files) loaded into core's `TinyLm`, and saved back in the same layout so `transformers` loads
 * the result unchanged.
 *
 * Name mapping, Hugging Face (with or without the `transformer.` prefix) → TinyLm:
 *   wte.weight [V, C] → wte            wpe.weight [P, C] → wpe          ln_f.{weight,bias} → lnf.{g,b}
 *   h.l.ln_1 / ln_2 → hl.ln1 / hl.ln2
 *   h.l.attn.c_attn.weight [C, 3C] → hl.attn.wq | wk | wv (column blocks; Conv1D stores [in, out],
 *     TinyLm's layout) and c_attn.bias [3C] → bq | bk | bv
 *   h.l.attn.c_proj → hl.attn.wo, bo   h.l.mlp.c_fc → hl.mlp.wfc, bfc   h.l.mlp.c_proj → hl.mlp.wproj, bproj
 * `lm_head.weight` is absent when tied (it must equal wte when present); the `attn.bias` /
 * `attn.masked_bias` causal-mask buffers are ignored. Added tokens grow `wte` by rows copied from
 * an existing token's row, as Coconut's code initialises its new latent tokens (Hao et al. 2024).
 */
import { existsSync, promises as fs } from 'node:fs';
import * as path from 'node:path';
import { writeFileAtomic } from './atomic.js';
import { gpt2ConfigFor, lmConfigFromGpt2, type Gpt2HfConfig } from './gpt2-config.js';
import { PretrainedTokenizer } from './pretrained-tokenizer.js';
import { readSafetensors, writeSafetensors, type SafetensorsDtype } from './safetensors.js';
import { Rng } from './rng.js';
import { TinyLm, type LmConfig } from './tiny-lm.js';

export const GPT2_WEIGHTS_FILE = 'model.safetensors';
export const GPT2_CONFIG_FILE = 'config.json';
const IGNORED = /^h\.\d+\.attn\.(bias|masked_bias)$/;

/** One Hugging Face tensor and the TinyLm parameters it holds (several: column blocks of it). */
interface Slot {
  hf: string;
  shape: number[];
  parts: string[];
}

function slots(c: LmConfig): Slot[] {
  const C = c.width;
  const F = c.mlpRatio * C;
  const out: Slot[] = [
    { hf: 'wte.weight', shape: [c.vocabSize, C], parts: ['wte'] },
    { hf: 'wpe.weight', shape: [c.contextLength, C], parts: ['wpe'] },
  ];
  for (let l = 0; l < c.layers; l++) {
    const h = `h.${l}.`;
    const o = `h${l}.`;
    out.push(
      { hf: `${h}ln_1.weight`, shape: [C], parts: [`${o}ln1.g`] },
      { hf: `${h}ln_1.bias`, shape: [C], parts: [`${o}ln1.b`] },
      { hf: `${h}attn.c_attn.weight`, shape: [C, 3 * C], parts: [`${o}attn.wq`, `${o}attn.wk`, `${o}attn.wv`] },
      { hf: `${h}attn.c_attn.bias`, shape: [3 * C], parts: [`${o}attn.bq`, `${o}attn.bk`, `${o}attn.bv`] },
      { hf: `${h}attn.c_proj.weight`, shape: [C, C], parts: [`${o}attn.wo`] },
      { hf: `${h}attn.c_proj.bias`, shape: [C], parts: [`${o}attn.bo`] },
      { hf: `${h}ln_2.weight`, shape: [C], parts: [`${o}ln2.g`] },
      { hf: `${h}ln_2.bias`, shape: [C], parts: [`${o}ln2.b`] },
      { hf: `${h}mlp.c_fc.weight`, shape: [C, F], parts: [`${o}mlp.wfc`] },
      { hf: `${h}mlp.c_fc.bias`, shape: [F], parts: [`${o}mlp.bfc`] },
      { hf: `${h}mlp.c_proj.weight`, shape: [F, C], parts: [`${o}mlp.wproj`] },
      { hf: `${h}mlp.c_proj.bias`, shape: [C], parts: [`${o}mlp.bproj`] },
    );
  }
  out.push({ hf: 'ln_f.weight', shape: [C], parts: ['lnf.g'] }, { hf: 'ln_f.bias', shape: [C], parts: ['lnf.b'] });
  return out;
}

export interface Gpt2Weights {
  hf: Gpt2HfConfig;
  lm: LmConfig;
  /** TinyLm parameter name → values. */
  weights: Map<string, Float32Array>;
  /** The dtypes stored in the file (read into float32). */
  dtypes: SafetensorsDtype[];
}

/** Reads config.json and model.safetensors; every error names the folder, the file and the tensor. */
export async function readGpt2Weights(folder: string): Promise<Gpt2Weights> {
  const configFile = path.join(folder, GPT2_CONFIG_FILE);
  const weightsFile = path.join(folder, GPT2_WEIGHTS_FILE);
  for (const f of [configFile, weightsFile])
    if (!existsSync(f))
      throw new Error(
        `${folder}: no ${path.basename(f)} (a Hugging Face GPT-2 folder has config.json, model.safetensors and tokenizer.json or vocab.json + merges.txt)`,
      );
  let json: unknown;
  try {
    json = JSON.parse(await fs.readFile(configFile, 'utf8'));
  } catch (e) {
    throw new Error(`${configFile} is not valid JSON: ${(e as Error).message}`);
  }
  const { hf, lm } = lmConfigFromGpt2(json, configFile);
  const file = await readSafetensors(weightsFile);
  const tensors = new Map<string, { shape: number[]; values: Float32Array; dtype: SafetensorsDtype }>();
  for (const [name, t] of file.tensors)
    tensors.set(name.startsWith('transformer.') ? name.slice('transformer.'.length) : name, t);
  const weights = new Map<string, Float32Array>();
  const used = new Set<string>();
  for (const slot of slots(lm)) {
    const t = tensors.get(slot.hf);
    if (!t)
      throw new Error(
        `${weightsFile}: missing tensor ${slot.hf} (or transformer.${slot.hf}), expected shape [${slot.shape}] (from ${configFile})`,
      );
    if (t.shape.join() !== slot.shape.join())
      throw new Error(
        `${weightsFile}: tensor ${slot.hf} has shape [${t.shape}], expected [${slot.shape}] (from ${configFile})`,
      );
    used.add(slot.hf);
    splitColumns(t.values, slot.shape, slot.parts.length).forEach((v, i) => weights.set(slot.parts[i], v));
  }
  const head = tensors.get('lm_head.weight');
  if (head) {
    used.add('lm_head.weight');
    const wte = tensors.get('wte.weight')!;
    if (head.shape.join() !== wte.shape.join() || head.values.some((v, i) => v !== wte.values[i]))
      throw new Error(
        `${weightsFile}: lm_head.weight differs from wte.weight; Telepath's GPT-2 ties the output head to the token embedding`,
      );
  }
  const extra = [...tensors.keys()].filter((n) => !used.has(n) && !IGNORED.test(n));
  if (extra.length)
    throw new Error(
      `${weightsFile}: unexpected tensors ${extra.slice(0, 5).join(', ')}${extra.length > 5 ? ` (+${extra.length - 5} more)` : ''} for a GPT-2 with ${lm.layers} layers (${configFile})`,
    );
  return { hf, lm, weights, dtypes: [...new Set([...file.tensors.values()].map((t) => t.dtype))] };
}

export interface LoadedGpt2 {
  lm: TinyLm;
  hf: Gpt2HfConfig;
  tokenizer: PretrainedTokenizer;
  dtypes: SafetensorsDtype[];
}

export interface LoadGpt2Options {
  /** Add Telepath's special tokens (pad, bos, eos, … ###) to the tokenizer and embedding (default false). */
  addSpecialTokens?: boolean;
  /** Overrides of the LM config read from config.json (e.g. dropout, contextLength no larger than n_positions). */
  lm?: Partial<Pick<LmConfig, 'dropout'>>;
  namePrefix?: string;
}

/** A GPT-2 folder as a TinyLm plus its tokenizer. */
export async function loadGpt2(folder: string, o: LoadGpt2Options = {}): Promise<LoadedGpt2> {
  const { hf, lm: config, weights, dtypes } = await readGpt2Weights(folder);
  const tokenizer = await PretrainedTokenizer.load(folder, {
    addSpecialTokens: o.addSpecialTokens ?? false,
    modelVocabSize: config.vocabSize,
  });
  let vocabSize = config.vocabSize;
  if (tokenizer.size > vocabSize) {
    const wte = weights.get('wte')!;
    const grown = new Float32Array(tokenizer.size * config.width);
    grown.set(wte);
    for (let id = vocabSize; id < tokenizer.size; id++) {
      const from = tokenizer.newTokenInitIds[id - vocabSize] ?? 0; // [C] row copied
      grown.copyWithin(id * config.width, from * config.width, (from + 1) * config.width);
    }
    weights.set('wte', grown);
    vocabSize = tokenizer.size;
  }
  const lm = new TinyLm({ ...config, ...o.lm, vocabSize }, new Rng(0), o.namePrefix ?? 'lm', weights);
  return { lm, hf, tokenizer, dtypes };
}

/**
 * Saves an LM in Hugging Face's GPT-2 layout: config.json (the source's keys, this LM's sizes),
 * model.safetensors (F32, GPT2LMHeadModel's `transformer.` names, lm_head tied and absent) and,
 * when given, the tokenizer files.
 */
export async function saveGpt2(
  folder: string,
  lm: TinyLm,
  o: { hf?: Partial<Gpt2HfConfig>; tokenizer?: PretrainedTokenizer } = {},
): Promise<void> {
  const values = new Map<string, Float32Array>();
  for (const [name, v] of lm.params) values.set(name, ((await v.data()) as Float32Array).slice()); // asynchronous: webgpu cannot read synchronously
  const tensors: [string, { shape: number[]; values: Float32Array }][] = slots(lm.config).map((s) => [
    `transformer.${s.hf}`,
    {
      shape: s.shape,
      values: joinColumns(
        s.parts.map((p) => values.get(p)!),
        s.shape,
      ),
    },
  ]);
  await fs.mkdir(folder, { recursive: true });
  await writeSafetensors(path.join(folder, GPT2_WEIGHTS_FILE), tensors);
  await writeFileAtomic(
    path.join(folder, GPT2_CONFIG_FILE),
    JSON.stringify(gpt2ConfigFor(lm.config, o.hf), null, 2) + '\n',
  );
  if (o.tokenizer) await o.tokenizer.save(folder);
}

/** [R, k·N] (or [k·N]) row-major → k blocks of N columns each. */
function splitColumns(values: Float32Array, shape: number[], k: number): Float32Array[] {
  if (k === 1) return [values];
  const cols = shape[shape.length - 1];
  const rows = values.length / cols;
  const n = cols / k;
  return Array.from({ length: k }, (_, b) => {
    const out = new Float32Array(rows * n);
    for (let r = 0; r < rows; r++) out.set(values.subarray(r * cols + b * n, r * cols + (b + 1) * n), r * n);
    return out;
  });
}

function joinColumns(blocks: Float32Array[], shape: number[]): Float32Array {
  if (blocks.length === 1) return blocks[0];
  const cols = shape[shape.length - 1];
  const rows = (blocks[0].length * blocks.length) / cols;
  const n = cols / blocks.length;
  const out = new Float32Array(rows * cols);
  blocks.forEach((block, b) => {
    for (let r = 0; r < rows; r++) out.set(block.subarray(r * n, (r + 1) * n), r * cols + b * n);
  });
  return out;
}
