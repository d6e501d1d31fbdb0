/**
 * An arm's LM and tokenizer from a pretrained Hugging Face GPT-2 folder (`lm.pretrained`): core's
 * `loadGpt2` with Telepath's special tokens added (their embedding rows copied from existing
 * tokens'), the arm's or else the experiment's `lm.dropout` for training. The run directory records the LM config
 * (`model.json`) and which tokenizer it used (`tokenizer.json`: the folder, the vocabulary size and
 * the added tokens' ids), so `initFrom` can check two arms share them; resumed runs reload the
 * folder and then their checkpoints. A finished arm's LM is saved back beside its records in the
 * same layout (`hf/`: model.safetensors, config.json, tokenizer files), which `transformers` loads.
 */
import { existsSync, promises as fs } from 'node:fs';
import * as path from 'node:path';
import {
  encodeExample,
  loadGpt2,
  writeFileAtomic,
  type Example,
  type Gpt2HfConfig,
  type PretrainedTokenizer,
  type TinyLm,
} from '@telepath/core';
import type { Arm, ExperimentConfig } from '../experiment/experiment.js';

/** The folder, inside a finished pretrained arm's run directory, that holds its LM in Hugging Face's layout. */
export const PRETRAINED_EXPORT = 'hf';

export async function pretrainedLm(
  folder: string,
  dir: string,
  exp: ExperimentConfig,
  arm: Arm,
  all: Example[],
): Promise<{ lm: TinyLm; tokenizer: PretrainedTokenizer; hf: Gpt2HfConfig }> {
  const { lm, tokenizer, hf } = await loadGpt2(path.resolve(folder), {
    addSpecialTokens: true,
    lm: { dropout: arm.lm?.dropout ?? exp.lm.dropout },
    namePrefix: 'lm',
  });
  // An arm's own sizes (e.g. a parameter-matched control) cannot apply to a checkpoint: say so.
  const ignored = Object.entries(arm.lm ?? {}).filter(
    ([k, v]) => k !== 'dropout' && (lm.config as unknown as Record<string, unknown>)[k] !== v,
  );
  if (ignored.length)
    console.error(
      `[telepath] ${arm.name}: its lm settings ${ignored.map(([k, v]) => `${k} ${JSON.stringify(v)}`).join(', ')} do not apply to the pretrained checkpoint ${folder}; it runs with the checkpoint's (${dir}/model.json)`,
    );
  const longest = Math.max(
    0,
    ...all.map((ex) => {
      const e = encodeExample(tokenizer, ex);
      return e.prompt.length + e.reasoning.length + e.answer.length;
    }),
  );
  if (longest > lm.config.contextLength) {
    lm.dispose();
    throw new Error(
      `lm.pretrained ${folder}: the longest example is ${longest} tokens, more than the checkpoint's ${lm.config.contextLength} positions`,
    );
  }
  const record = {
    format: 'telepath-pretrained-tokenizer',
    folder, // as configured (relative to the working directory), so records move with the repository
    size: tokenizer.size,
    added: Object.fromEntries(
      ['pad', 'bos', 'eos', 'unk', 'bot', 'eot', 'latent', 'sep'].map((n) => [n, tokenizer.id(n)]),
    ),
  };
  for (const [file, value] of [
    ['tokenizer.json', record],
    ['model.json', lm.config],
  ] as const) {
    const target = path.join(dir, file);
    const text = JSON.stringify(value, null, 2) + '\n';
    if (existsSync(target) && (await fs.readFile(target, 'utf8')) !== text) {
      lm.dispose();
      throw new Error(
        `${target} differs from what ${folder} gives now (the checkpoint or its tokenizer changed since this run started); start a new run`,
      );
    }
    await writeFileAtomic(target, text);
  }
  return { lm, tokenizer, hf };
}
