/**
 * CoLaR sequences on core's shared layout (arXiv 2505.16552; released prompt in docs/method-reference.md §5):
 *   prompt = <bos> question "\n" + "Thinking speed: c"      (raw tokens)
 *   chain  = ### (alone in its group), then the reasoning tokens in groups of c
 *   answer = ### " " answer <eos>                            (raw tokens; ### = stop)
 * SFT feeds the compressed chain; inference and GRPO feed latent vectors in its place. Labels:
 * each compressed position is labelled with one token drawn uniformly from its group
 * ("compressed reasoning tokens t_c"). Letters: U input positions.
 */
import { encodeExample, type Example, type Rng, type Tokenizer } from '@telepath/core';
import { chainGroups, type RowLayout } from './compress.js';

/** Prompt ids up to and including the opening ### (chain group 0): <bos> question\n speed ###. */
export function promptIds(tok: Tokenizer, ex: Example, c: number, speedPrompt: string): number[] {
  return [...encodeExample(tok, ex).prompt, ...tok.encode(speedPrompt.replace('{c}', String(c))), tok.sepId];
}

export interface SftRow {
  layout: RowLayout;
  /** Token label of each unit (a random member for a group): position u − 1 predicts labels[u]. */
  labels: number[];
  /** Unit index of the opening ### (chain group 0). */
  chainStart: number;
  /** Unit index of the last chain group (the position whose next input is the closing ###). */
  chainEnd: number;
}

/** The SFT row of one example at speed c; `rng` draws each group's label token. */
export function sftRow(tok: Tokenizer, ex: Example, c: number, speedPrompt: string, rng: Rng): SftRow {
  const e = encodeExample(tok, ex);
  const prompt = promptIds(tok, ex, c, speedPrompt);
  const promptOnly = prompt.length - 1; // the opening ### belongs to the chain
  const source = [...prompt, ...e.reasoning, ...e.answer];
  const units: { members: number[] }[] = [];
  for (let i = 0; i < promptOnly; i++) units.push({ members: [i] });
  const chainStart = units.length;
  for (const g of chainGroups(e.reasoning.length, c)) units.push({ members: g.map((j) => promptOnly + j) });
  const chainEnd = units.length - 1;
  for (let i = 0; i < e.answer.length; i++) units.push({ members: [prompt.length + e.reasoning.length + i] });
  const labels = units.map((u) => source[u.members.length === 1 ? u.members[0] : rng.pick(u.members)]);
  return { layout: { source, units, speed: c }, labels, chainStart, chainEnd };
}

/** A finished rollout: the prompt (with the opening ###), the latents fed, and the sampled answer. */
export interface RolloutRow {
  prompt: number[];
  /** The speed its prompt names (and whose vector the opening ### read, with `speedVector`). */
  speed: number;
  /** Latents fed after the opening ###, in embedding space (z · scale). */
  fed: Float32Array[];
  /** The head's samples (z, in units of the embedding scale), one per latent fed. */
  latents: Float32Array[];
  /** Whether the closing ### was sampled (false: forced at the latent cap). */
  stopSampled: boolean;
  /** Answer ids after the closing ###, up to and including <eos> when it was emitted. */
  answer: number[];
}

/** The teacher-forcing layout of a rollout: prompt, latents, closing ###, answer tokens. */
export function rolloutLayout(tok: Tokenizer, r: RolloutRow): RowLayout {
  const source = [...r.prompt, tok.sepId, ...r.answer];
  const units: RowLayout['units'] = r.prompt.map((_, i) => ({ members: [i] }));
  for (const v of r.fed) units.push({ vector: v });
  for (let i = r.prompt.length; i < source.length; i++) units.push({ members: [i] });
  return { source, units, speed: r.speed };
}
