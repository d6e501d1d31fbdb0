/**
 * Objectives of ThoughtComm's prefix adapter ("Thought Communication in Multiagent Collaboration",
 * arXiv 2510.20733; docs/method-reference.md §1.9 Eq. 12), summed over agents (third-party: "unweighted sum"):
 *   paper: L_i = −log p(y_gen | context, P^(i)) + (1 − cos(φ̄_P, φ̄_ref))
 *          y_gen: a brief continuation generated with the prefix (greedy, no gradient through the
 *          choice of tokens; `paperContinuations`, run before the gradient tape by train's `prepare`); φ̄_P: mean last-layer state over context + y_gen with the prefix;
 *          φ̄_ref: the same without the prefix over context + y_ref, the agent's own answer before
 *          communication (third-party §1.9: "Weber = mean last-layer states of (prefix+context+y)
 *          vs (context+y_ref)"). No labels.
 *   task:  L_i = −log p(answer | prompt, P^(i)) on the gold answer (our supervised variant).
 * Letters: B batch, T tokens, Z thoughts, m prefix length, C width.
 */
import * as tf from '@tensorflow/tfjs-core';
import { maskedCrossEntropy, packSegments, tidy, type Example, type PackedBatch } from '@telepath/core';
import type { AdapterObjective } from './agents-config.js';
import { agentSegments, prefixedTeacherForcing, promptIds, respond, type Agent } from './agents.js';
import { agentPrefix, type CommModule } from './model.js';

export interface CommBatch {
  examples: Example[];
  /** Thoughts Ẑ of the batch (encoded states before communication): [B, Z]. */
  z: tf.Tensor2D;
  /** y_ref per agent and row: the agent's response before communication (ids after the prompt). */
  refs: number[][][];
  /** The paper objective's y_gen per agent and row, from `paperContinuations` with the current adapter. */
  continuations?: number[][][];
}

/**
 * y_gen of the paper objective: each agent's greedy continuation behind its current prefix, decoded
 * before the loss (outside the gradient tape: the token choices carry no gradient, and decoding
 * reads asynchronously). continuations[agent][row].
 */
export async function paperContinuations(
  agents: Agent[],
  comm: CommModule,
  batch: Pick<CommBatch, 'examples' | 'z'>,
  o: { continuationTokens: number },
): Promise<number[][][]> {
  const out: number[][][] = [];
  for (const [k, a] of agents.entries()) {
    const prefix = agentPrefix(comm, batch.z, k); // [B, m, C]
    try {
      out.push((await respond(a, batch.examples, prefix, { maxNewTokens: o.continuationTokens })).responses);
    } finally {
      prefix.dispose();
    }
  }
  return out;
}

/** Mean of h [B, T, C] over positions where mask [B, T] is 1 → [B, C]. */
export function maskedMean(h: tf.Tensor3D, mask: tf.Tensor2D): tf.Tensor2D {
  return tidy(() => {
    const m = tf.expandDims(mask, -1); // [B, T, 1]
    return tf.div(tf.sum(tf.mul(h, m), 1), tf.maximum(tf.sum(m, 1), 1)) as tf.Tensor2D;
  });
}

/** 1 − cos per row, averaged. a, b [B, C] → scalar */
export function cosineDistance(a: tf.Tensor2D, b: tf.Tensor2D): tf.Scalar {
  return tidy(() => {
    const dot = tf.sum(tf.mul(a, b), -1); // [B]
    const na = tf.sqrt(tf.sum(tf.mul(a, a), -1));
    const nb = tf.sqrt(tf.sum(tf.mul(b, b), -1));
    return tf.mean(tf.sub(1, tf.div(dot, tf.maximum(tf.mul(na, nb), 1e-12)))) as tf.Scalar;
  });
}

function taskLoss(a: Agent, prefix: tf.Tensor3D, batch: CommBatch): tf.Scalar {
  return tidy(() => {
    const p = packSegments(
      batch.examples.map((ex) => agentSegments(a, ex)),
      a.tokenizer.padId,
    );
    const out = prefixedTeacherForcing(a.lm, prefix, p, a.prefixPositions);
    return maskedCrossEntropy(out.logits, out.targets, out.lossMask);
  });
}

function paperLoss(a: Agent, k: number, prefix: tf.Tensor3D, batch: CommBatch): tf.Scalar {
  const gen = batch.continuations?.[k];
  if (!gen)
    throw new Error(
      `thought-comm: the paper objective needs the batch's continuations (y_gen) of agent ${k}; paperContinuations makes them before the loss`,
    );
  return tidy(() => {
    const contexts = batch.examples.map((ex) => promptIds(a, ex));
    const pack = (ys: number[][]): PackedBatch =>
      packSegments(
        contexts.map((c, i) => [
          { ids: c, trained: false },
          { ids: ys[i], trained: true },
        ]),
        a.tokenizer.padId,
      );
    const pGen = pack(gen);
    const withPrefix = prefixedTeacherForcing(a.lm, prefix, pGen, a.prefixPositions);
    const nll = maskedCrossEntropy(withPrefix.logits, withPrefix.targets, withPrefix.lossMask);
    const L = a.lm.config.layers;
    const pRef = pack(batch.refs[k]);
    const ref = prefixedTeacherForcing(a.lm, null, pRef);
    const cos = cosineDistance(
      maskedMean(withPrefix.hidden[L], withPrefix.tokenMask),
      maskedMean(ref.hidden[L], ref.tokenMask),
    );
    return tf.add(nll, cos) as tf.Scalar;
  });
}

/** The adapter objective summed over agents (inside tf.tidy / variableGrads of core's train); 'paper' needs `batch.continuations`. */
export function adapterLoss(
  agents: Agent[],
  comm: CommModule,
  objective: AdapterObjective,
  batch: CommBatch,
): tf.Scalar {
  return tidy(() => {
    const terms = agents.map((a, k) => {
      const prefix = agentPrefix(comm, batch.z, k); // [B, m, C]
      return objective === 'task' ? taskLoss(a, prefix, batch) : paperLoss(a, k, prefix, batch);
    });
    return tf.addN(terms) as tf.Scalar;
  });
}
