/**
 * Agents that start from kept run records instead of being trained here: each folder holds a
 * finished LM run (model.json, tokenizer.json, final.ckpt) — a task's No-CoT reference, say — so
 * the agents are exactly the references the comparison is about. The folders must share one
 * tokenizer and one model config: the agents talk through one autoencoder over their
 * concatenated states and decode with one tokenizer.
 */
import { existsSync, promises as fs } from 'node:fs';
import * as path from 'node:path';
import {
  exampleTexts,
  lmConfig,
  readCheckpoint,
  restoreCheckpoint,
  Rng,
  TinyLm,
  Tokenizer,
  type Example,
  type LmConfig,
} from '@telepath/core';

/** The files a record folder must hold; final.ckpt is what `telepath run` keeps with `--weights`. */
const RECORD_FILES = ['model.json', 'tokenizer.json', 'final.ckpt'] as const;

export interface RecordAgents {
  lms: TinyLm[];
  tokenizer: Tokenizer;
  config: LmConfig;
}

/**
 * The folders the agents load for run seed `seed`: `agentsFrom` resolved against `baseDir`, each
 * `{seed}` replaced by the seed; one folder serves every agent (copies), else one per agent.
 */
export function agentRecordDirs(
  agentsFrom: readonly string[],
  agents: number,
  seed: number,
  baseDir: string,
): string[] {
  const dirs = agentsFrom.map((p) => path.resolve(baseDir, p.replaceAll('{seed}', String(seed))));
  return dirs.length === 1 ? Array.from({ length: agents }, () => dirs[0]) : dirs;
}

/** One LM per folder (`agent<k>` variables), restored from its final.ckpt; every folder's tokenizer and model config must be the first's. */
export async function loadRecordAgents(dirs: readonly string[], dropout: number): Promise<RecordAgents> {
  for (const dir of new Set(dirs))
    for (const f of RECORD_FILES)
      if (!existsSync(path.join(dir, f)))
        throw new Error(
          `thought-comm agents: agentsFrom ${dir} has no ${f} (a finished run kept with its weights: telepath run … --weights, or a runs folder)`,
        );
  const read = async (dir: string, f: string) => fs.readFile(path.join(dir, f), 'utf8');
  const [tokenizerText, modelText] = [await read(dirs[0], 'tokenizer.json'), await read(dirs[0], 'model.json')];
  for (const dir of dirs.slice(1))
    for (const [f, first] of [
      ['tokenizer.json', tokenizerText],
      ['model.json', modelText],
    ] as const)
      if (JSON.stringify(JSON.parse(await read(dir, f))) !== JSON.stringify(JSON.parse(first)))
        throw new Error(
          `thought-comm agents: agentsFrom ${dir}/${f} differs from ${dirs[0]}/${f}; every agent must share them`,
        );
  const saved = lmConfig(JSON.parse(modelText));
  const config: LmConfig = { ...saved, dropout };
  const tokenizer = await Tokenizer.load(path.join(dirs[0], 'tokenizer.json'));
  const lms: TinyLm[] = [];
  try {
    const checkpoints = new Map<string, Awaited<ReturnType<typeof readCheckpoint>>>(); // copies read their folder once
    for (const [k, dir] of dirs.entries()) {
      const file = path.join(dir, 'final.ckpt');
      const lm = new TinyLm(config, new Rng(0), `agent${k}`); // initial values are overwritten just below
      lms.push(lm);
      if (!checkpoints.has(file)) checkpoints.set(file, await readCheckpoint(file));
      restoreCheckpoint(file, checkpoints.get(file)!, { params: lm.params, modelConfig: saved });
    }
  } catch (e) {
    lms.forEach((lm) => lm.dispose());
    throw e;
  }
  return { lms, tokenizer, config };
}

/**
 * Throws, naming the first, when an example has a piece the agents' tokenizer lacks: the data is not
 * the records'. Each text is checked as the shared layout writes it (core's `exampleTexts`: the
 * answer after a space, so a word answer is the word's spaced token, as in the references' training).
 */
export function checkRecordVocabulary(tokenizer: Tokenizer, examples: readonly Example[], from: string): void {
  const unk = tokenizer.unkId;
  for (const ex of examples)
    for (const text of exampleTexts([ex]))
      if (tokenizer.encode(text).includes(unk))
        throw new Error(
          `thought-comm agents: agentsFrom ${from}: its tokenizer has no token for part of ${JSON.stringify(text)} (question ${JSON.stringify(ex.question)}); the experiment's data must be written as the records' was`,
        );
}
