/**
 * ThoughtComm's forward pass ("Thought Communication in Multiagent Collaboration", arXiv
 * 2510.20733; docs/method-reference.md §1.3 pipeline, §1.8 agreement-based reweighting, §1.9 Eq. 11
 * prefix adapter): the agents' states H = [H^(1) … H^(A)] (agents.ts `agentStates`) are encoded
 * into thoughts Ẑ = f̂⁻¹(H) (autoencoder.ts `encode`); this file routes them to each agent and
 * turns them into its prefix, which the agent reads in front of its input (agents.ts
 * `prefixedForward`; one debate round in debate.ts):
 *   Z̃^(i) = Ẑ ⊙ mask_i ⊙ w[α]          mask_i: thoughts relevant to agent i (recovered structure),
 *                                        α_j: agreement level, w ∈ R^{n_a+1} learnable (§1.8)
 *   P^(i) = g_i(Z̃^(i)) ∈ R^{m×C}        rescaled so every prefix vector has the norm of an
 *                                        average row of agent i's embedding table
 * chosen: one adapter g_i per agent, because our agents are trained from different
 * initialisations and do not share an embedding space (the paper's agents are copies of one base
 * model, §1.10); the agreement weights are shared by all agents (§1.8: one scalar per level).
 * Letters: B batch, Z thoughts, A agents, m prefix length, C width, W adapter hidden width.
 */
import * as tf from '@tensorflow/tfjs-core';
import { tidy, uniqueVariableName, variableFrom, type Rng } from '@telepath/core';
import type { AdapterConfig } from './agents-config.js';
import type { Structure } from './structure.js';

export interface PrefixAdapter {
  w1: tf.Variable;
  b1: tf.Variable;
  w2: tf.Variable;
  b2: tf.Variable;
  width: number;
  scale: number;
}

export interface CommModule {
  agents: number;
  latentDim: number;
  prefixLength: number;
  /** 0/1 relevance of each thought to each agent: [A, Z] (constant, from the read-off). */
  masks: tf.Tensor2D;
  /** α_j of each thought: [Z] int32 (constant). */
  alpha: tf.Tensor1D;
  /** w_α, α = 0..A: [A + 1], learnable. */
  agreement: tf.Variable;
  adapters: PrefixAdapter[];
  /** Trainable variables by name. */
  params: Map<string, tf.Variable>;
  dispose(): void;
}

/**
 * Builds the routing (from the recovered structure) and one prefix adapter per agent; `widths`
 * and `scales` are each agent's embedding width and mean embedding norm.
 */
export function createComm(
  st: Structure,
  cfg: AdapterConfig,
  widths: number[],
  scales: number[],
  rng: Rng,
): CommModule {
  const A = st.agents;
  const Z = st.latentDim;
  const id = uniqueVariableName('thought-comm.comm');
  const params = new Map<string, tf.Variable>();
  const dense = (name: string, inp: number, out: number, r: Rng) => {
    // chosen: LeCun-normal weights, zero biases (as the autoencoder, autoencoder.ts)
    const w = variableFrom(
      tf.tensor2d(r.normalArray(inp * out, 1 / Math.sqrt(inp)), [inp, out]),
      true,
      `${id}/${name}.w`,
    );
    const b = variableFrom(tf.zeros([out]), true, `${id}/${name}.b`);
    params.set(`${name}.w`, w);
    params.set(`${name}.b`, b);
    return { w, b };
  };
  const adapters = widths.map((C, k) => {
    const l1 = dense(`adapter${k}.0`, Z, cfg.hidden, rng.fork(`adapter${k}.0`));
    const l2 = dense(`adapter${k}.1`, cfg.hidden, cfg.prefixLength * C, rng.fork(`adapter${k}.1`));
    return { w1: l1.w, b1: l1.b, w2: l2.w, b2: l2.b, width: C, scale: scales[k] };
  });
  const agreement = variableFrom(tf.fill([A + 1], cfg.agreementInit), true, `${id}/agreement`);
  params.set('agreement', agreement);
  const masks = tf.tensor2d(Float32Array.from(st.agentSupport), [A, Z], 'float32');
  const alpha = tf.tensor1d(st.agreement, 'int32');
  return {
    agents: A,
    latentDim: Z,
    prefixLength: cfg.prefixLength,
    masks,
    alpha,
    agreement,
    adapters,
    params,
    dispose: () => {
      for (const v of params.values()) v.dispose();
      masks.dispose();
      alpha.dispose();
    },
  };
}

/** Agent k's routed thoughts Ẑ ⊙ mask_k ⊙ w[α]. z [B, Z] → [B, Z] */
export function routeThoughts(c: CommModule, z: tf.Tensor2D, k: number): tf.Tensor2D {
  return tidy(() => {
    const mask = tf.reshape(tf.slice(c.masks, [k, 0], [1, -1]), [c.latentDim]); // [Z]
    const weight = tf.gather(c.agreement, c.alpha); // [Z]
    return tf.mul(z, tf.mul(mask, weight)) as tf.Tensor2D;
  });
}

/** Rescales each vector of p [B, m, C] to norm `scale` (§1.9: prefixes at the embedding table's norm). */
export function scaleToNorm(p: tf.Tensor3D, scale: number): tf.Tensor3D {
  return tidy(() => tf.mul(tf.div(p, tf.sqrt(tf.add(tf.sum(tf.mul(p, p), -1, true), 1e-12))), scale) as tf.Tensor3D);
}

/** Agent k's prefix from its routed thoughts: g_k(Z̃) rescaled. zRouted [B, Z] → [B, m, C] */
export function prefixFromThoughts(c: CommModule, zRouted: tf.Tensor2D, k: number): tf.Tensor3D {
  return tidy(() => {
    const a = c.adapters[k];
    const h = tf.add(tf.matMul(zRouted, a.w1 as tf.Tensor2D), a.b1); // [B, W]
    const act = tf.mul(h, tf.sigmoid(h)); // chosen: SiLU, as the autoencoder's default
    const out = tf.add(tf.matMul(act as tf.Tensor2D, a.w2 as tf.Tensor2D), a.b2); // [B, m·C]
    return scaleToNorm(tf.reshape(out, [zRouted.shape[0], c.prefixLength, a.width]) as tf.Tensor3D, a.scale);
  });
}

/** Routing then adapter for agent k. z [B, Z] → [B, m, C] */
export function agentPrefix(c: CommModule, z: tf.Tensor2D, k: number): tf.Tensor3D {
  return tidy(() => prefixFromThoughts(c, routeThoughts(c, z, k), k));
}
