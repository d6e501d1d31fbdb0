/**
 * Where the agents' LMs come from, with their shared tokenizer and model config: a pretrained
 * GPT-2 (`lm.pretrained`, every agent a copy, Telepath's specials added to its tokenizer), kept
 * run records (`agentsFrom`, agent-records.ts), or new LMs of `lm`'s size that the experiment
 * trains, with a tokenizer built from the training examples.
 */
import * as path from 'node:path';
import {
  encodeExample,
  loadGpt2,
  runTokenizer,
  TinyLm,
  type Example,
  type LmConfig,
  type Rng,
  type Tokenizer,
} from '@telepath/core';
import type { BuildOptions } from '@telepath/core';
import type { AgentsExperimentConfig } from './agents-config.js';
import { agentRecordDirs, checkRecordVocabulary, loadRecordAgents } from './agent-records.js';
import { peerVocabularyExamples } from './text-debate.js';

/** Extra positions beyond the longest example: the prefix and generation slack. */
const CONTEXT_MARGIN = 8;

export interface AgentLms {
  lms: TinyLm[];
  tokenizer: Tokenizer;
  lmConfig: LmConfig;
  /** The run records the LMs were loaded from (agentsFrom, resolved), or null. */
  recordDirs: string[] | null;
}

export async function agentLms(
  c: AgentsExperimentConfig,
  data: { train: Example[]; test: Example[]; vocabulary?: BuildOptions },
  o: { seed: number; dir: string; rng: Rng; recordsDir?: string },
): Promise<AgentLms> {
  const examples = [...data.train, ...data.test];
  const pretrained = c.lm.pretrained
    ? await Promise.all(
        Array.from({ length: c.agents }, (_, k) =>
          loadGpt2(c.lm.pretrained!, {
            addSpecialTokens: true,
            lm: { dropout: c.lm.dropout },
            namePrefix: `agent${k}`,
          }),
        ),
      )
    : null;
  const recordDirs = c.agentsFrom.length
    ? agentRecordDirs(c.agentsFrom, c.agents, o.seed, o.recordsDir ?? process.cwd())
    : null;
  const records = recordDirs ? await loadRecordAgents(recordDirs, c.lm.dropout) : null;
  const loaded = pretrained?.map((p) => p.lm) ?? records?.lms ?? null;
  try {
    if (records) {
      checkRecordVocabulary(records.tokenizer, examples, recordDirs![0]);
      await records.tokenizer.save(path.join(o.dir, 'tokenizer.json'));
    }
    const tokenizer =
      pretrained?.[0].tokenizer ??
      records?.tokenizer ??
      (await runTokenizer(
        path.join(o.dir, 'tokenizer.json'),
        c.textDebate ? [...data.train, ...peerVocabularyExamples()] : data.train,
        data.vocabulary,
      ));
    // With text debate a question carries A − 1 peer answers of up to eval.maxNewTokens tokens each, plus the marker and separators.
    const peerRoom = c.textDebate ? (c.agents - 1) * (c.eval.maxNewTokens + 2) + 2 : 0;
    const longest =
      peerRoom +
      Math.max(
        ...examples.map((ex) => {
          const e = encodeExample(tokenizer, ex);
          return e.prompt.length + e.reasoning.length + e.answer.length;
        }),
      );
    const needed = longest + c.adapter.prefixLength;
    if (loaded) {
      const lmConfig = pretrained?.[0].lm.config ?? records!.config;
      if (needed > lmConfig.contextLength)
        throw new Error(
          `thought-comm agents: ${pretrained ? `lm.pretrained ${c.lm.pretrained}` : `agentsFrom ${recordDirs![0]}`}: the longest example plus the prefix is ${needed} tokens, more than the checkpoint's ${lmConfig.contextLength} positions`,
        );
      return { lms: loaded, tokenizer, lmConfig, recordDirs };
    }
    const { contextLength, pretrained: _folder, ...lmRest } = c.lm;
    const lmConfig: LmConfig = {
      ...lmRest,
      vocabSize: tokenizer.size,
      contextLength: contextLength || needed + CONTEXT_MARGIN,
    };
    const lms = Array.from({ length: c.agents }, (_, k) => new TinyLm(lmConfig, o.rng.fork(`agent/${k}`), `agent${k}`));
    return { lms, tokenizer, lmConfig, recordDirs };
  } catch (e) {
    loaded?.forEach((lm) => lm.dispose());
    throw e;
  }
}
