/**
 * Where a written-reasoning reference's loss goes: its teacher-forced loss on gold chains, per
 * target token. The chain's last token (what ends the chain: the decision to stop) is counted
 * apart from the same token elsewhere. A model that has learnt everything but one decision shows
 * it here: on ProsQA the done stage of seed 1 wrote the bookkeeping as well as seed 2 and lost
 * most of its loss on ':' (go on) and the chain's last token (stop).
 */
import * as tf from '@tensorflow/tfjs-core';
import { packSegments, referenceSegments, type Example, type TinyLm, type Tokenizer } from '@telepath/core';

/** What a row of the table groups: a target token, or the chain's last token. */
export const CHAIN_END = '⟨the chain’s last token⟩';

export interface TokenLossRow {
  /** The target token as written (JSON-quoted), or CHAIN_END. */
  target: string;
  count: number;
  meanLoss: number;
  /** How often the target is the model's most likely next token. */
  argmaxRight: number;
  /** This row's part of the summed loss, 0..1. */
  share: number;
}

export interface TokenLossTable {
  rows: TokenLossRow[]; // by share, largest first
  tokens: number;
  meanLoss: number; // over every trained target: the teacher-forced training loss on these examples
}

/**
 * Per-target loss of `lm` on the examples' gold sequences as the reference trains them (prompt as
 * context, not scored; with `withReasoning` the chain, then `### answer <eos>`), in batches of
 * `batchSize`.
 */
export async function tokenLosses(
  lm: TinyLm,
  tok: Tokenizer,
  examples: Example[],
  withReasoning: boolean,
  batchSize = 16,
): Promise<TokenLossTable> {
  const groups = new Map<string, { count: number; loss: number; right: number }>();
  let [tokens, total] = [0, 0];
  for (let i = 0; i < examples.length; i += batchSize) {
    const rows = examples.slice(i, i + batchSize).map((ex) => referenceSegments(tok, ex, withReasoning));
    const packed = packSegments(rows, tok.padId, lm.config.contextLength);
    const logProbs = tf.tidy(() => tf.logSoftmax(lm.forward(lm.embed(packed.ids)).logits)); // [B, T, V]; right padding, as the references train
    const [logp, mask, targets] = (await Promise.all([
      logProbs.array(),
      packed.lossMask.array(),
      packed.targets.array(),
    ])) as [number[][][], number[][], number[][]];
    tf.dispose([logProbs, packed.ids, packed.targets, packed.lossMask, packed.attentionMask]);
    rows.forEach((segments, b) => {
      // The input column whose target is the chain's last token (segments: prompt, chain, answer).
      const [prompt, chain] = segments;
      const chainEnd = withReasoning && chain.ids.length > 0 ? prompt.ids.length + chain.ids.length - 2 : -1;
      mask[b].forEach((w, t) => {
        if (w === 0) return;
        const target = targets[b][t];
        const row = logp[b][t];
        const loss = -row[target];
        const key = t === chainEnd ? CHAIN_END : JSON.stringify(tok.tokens[target]);
        const g = groups.get(key) ?? { count: 0, loss: 0, right: 0 };
        g.count++;
        g.loss += loss;
        if (row.every((v, j) => v <= row[target] || j === target)) g.right++;
        groups.set(key, g);
        tokens++;
        total += loss;
      });
    });
  }
  const table = [...groups].map(([target, g]) => ({
    target,
    count: g.count,
    meanLoss: g.loss / g.count,
    argmaxRight: g.right / g.count,
    share: total > 0 ? g.loss / total : 0,
  }));
  table.sort((a, b) => b.share - a.share || a.target.localeCompare(b.target));
  return { rows: table, tokens, meanLoss: tokens > 0 ? total / tokens : 0 };
}
