/**
 * `telepath lm <folder>`: loads a Hugging Face GPT-2 folder, runs one forward pass over a prompt
 * and a greedy continuation, and says what it found. A quick check that a checkpoint loads and
 * behaves as it does in PyTorch (`--json` prints the numbers to compare).
 */
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import {
  decode,
  describeBackend,
  disposeCache,
  initBackend,
  loadGpt2,
  prefill,
  type BackendCandidate,
} from '@telepath/core';
import { integerOption, printHelp, usageError } from './command-args.js';

const HELP = `Usage: telepath lm <folder> [--prompt TEXT | --ids 1,2,3] [--max-new-tokens N] [--json] [--backend NAME]

Loads a Hugging Face GPT-2 folder (config.json, model.safetensors, and tokenizer.json or
vocab.json + merges.txt), runs one forward pass over the prompt and a greedy continuation.
  --prompt TEXT        text, encoded with the folder's tokenizer
  --ids 1,2,3          token ids instead of text (default: the config's bos_token_id)
  --max-new-tokens N   length of the greedy continuation (default 20; 0 for none)
  --json               print one line: {"params", "ids", "lastLogits" (every vocabulary logit at the
                       last prompt position), "generated" (ids of the greedy continuation)}`;

export async function lmCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      prompt: { type: 'string' },
      ids: { type: 'string' },
      'max-new-tokens': { type: 'string', default: '20' },
      json: { type: 'boolean', default: false },
      backend: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) return printHelp(HELP);
  const fail = (why: string) => usageError('lm', why, HELP);
  if (positionals.length !== 1) return fail('expected one checkpoint folder');
  if (values.prompt !== undefined && values.ids !== undefined) return fail('give --prompt or --ids, not both');
  const maxNew = integerOption('lm', '--max-new-tokens', values['max-new-tokens'], 0);
  const idsArg = values.ids?.split(',').map((s) => Number(s.trim()));
  if (idsArg && (idsArg.length === 0 || idsArg.some((n) => !Number.isInteger(n) || n < 0)))
    return fail(`--ids takes comma-separated non-negative integers, got ${JSON.stringify(values.ids)}`);

  const folder = path.resolve(positionals[0]);
  const info = await initBackend(values.backend as BackendCandidate | undefined, { quiet: true });
  if (!values.json) console.error(describeBackend(info));
  const { lm, hf, tokenizer, dtypes } = await loadGpt2(folder);
  try {
    const bos = typeof hf.bos_token_id === 'number' ? hf.bos_token_id : lm.config.vocabSize - 1;
    const ids = idsArg ?? (values.prompt !== undefined ? tokenizer.encode(values.prompt) : [bos]);
    if (ids.length === 0) return fail('the prompt encodes to no tokens');
    const bad = ids.find((id) => id >= lm.config.vocabSize);
    if (bad !== undefined)
      return fail(`token id ${bad} is outside the vocabulary of ${folder} (vocab_size ${lm.config.vocabSize})`);
    if (ids.length > lm.config.contextLength)
      return fail(
        `the prompt has ${ids.length} tokens, more than the ${lm.config.contextLength} positions of ${folder}`,
      );
    const { cache, lastLogits, positions } = prefill(lm, [ids], bos);
    const logits = Array.from(await lastLogits.data()); // [V]
    const room = Math.min(maxNew, lm.config.contextLength - ids.length + 1);
    const generated =
      room > 0 ? (await decode(lm, cache, lastLogits, positions, { maxNewTokens: room })).tokens[0] : [];
    if (room <= 0) disposeCache(cache);
    lastLogits.dispose();
    if (values.json) {
      console.log(JSON.stringify({ params: lm.size, ids, lastLogits: logits, generated }));
      return 0;
    }
    const top = logits
      .map((v, i) => [v, i] as const)
      .sort((a, b) => b[0] - a[0])
      .slice(0, 5);
    const c = lm.config;
    console.log(`${folder}
  GPT-2: ${c.layers} layers, ${c.heads} heads, width ${c.width}, ${c.contextLength} positions, vocabulary ${c.vocabSize}, LayerNorm eps ${c.layerNormEps}
  ${lm.size.toLocaleString('en-US')} parameters, stored as ${dtypes.join(', ')}
  prompt (${ids.length} tokens): ${JSON.stringify(tokenizer.decode(ids))}
  next token, top 5: ${top.map(([v, i]) => `${JSON.stringify(tokenizer.decode([i]))} (${i}) ${v.toFixed(3)}`).join(', ')}
  greedy continuation (${generated.length} tokens): ${JSON.stringify(tokenizer.decode(generated))}`);
    return 0;
  } finally {
    lm.dispose();
  }
}
