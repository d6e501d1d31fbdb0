/**
 * Scores a trained autoencoder against the synthetic ground truth ("Thought Communication in
 * Multiagent Collaboration", arXiv 2510.20733; docs/method-reference.md §1.11 item 5 and §1.12): MCC (Pearson and
 * Spearman, Hungarian matching), element- and agent-level support recovery under that matching,
 * block R² with estimated groups taken from the recovered structure, the α histogram and the
 * held-out reconstruction error.
 */
import * as tf from '@tensorflow/tfjs-core';
import { tidy, type Rng } from '@telepath/core';
import { blockR2, type BlockR2Result } from './block-r2.js';
import type { ReadoutConfig } from './config.js';
import { mcc, supportScores, type SupportScores } from './metrics.js';
import { decode, encode, normaliseStates, type Autoencoder } from './autoencoder.js';
import { readStructure, type Structure } from './structure.js';
import { agentSupport, type SyntheticSample, type SyntheticWorld } from './synthetic.js';

export interface IdentificationMetrics {
  mcc: number;
  mccSpearman: number;
  /** Element-level support F1 (n_h × n_z) after matching columns by π*. */
  supportF1: number;
  support: SupportScores;
  /** Agent-level support (n_a × n_z) after matching. */
  blockSupport: SupportScores;
  blockR2: number;
  blockR2Detail: BlockR2Result;
  alphaHistogram: number[];
  trueAlphaHistogram: number[];
  /** Mean squared reconstruction error of standardised H on held-out samples. */
  reconstruction: number;
  perm: number[];
}

/** Codes Ẑ of raw states [N, n_h] in chunks (one asynchronous read each), as a Float32Array [N, Z]. */
export async function encodeAll(ae: Autoencoder, h: Float32Array, n: number, chunk = 512): Promise<Float32Array> {
  const out = new Float32Array(n * ae.latentDim);
  for (let s = 0; s < n; s += chunk) {
    const m = Math.min(chunk, n - s);
    const z = tf.tidy(() =>
      encode(ae, tf.tensor2d(h.subarray(s * ae.stateDim, (s + m) * ae.stateDim), [m, ae.stateDim])),
    );
    try {
      out.set(await z.data(), s * ae.latentDim);
    } finally {
      z.dispose();
    }
  }
  return out;
}

/** Held-out mean squared error of the standardised reconstruction. */
export async function reconstructionError(ae: Autoencoder, h: Float32Array, n: number): Promise<number> {
  const mse = tf.tidy(() => {
    const x = tf.tensor2d(h, [n, ae.stateDim]);
    const hn = normaliseStates(ae, x);
    const d = tf.sub(hn, decode(ae, encode(ae, x)));
    return tf.mean(tf.mul(d, d));
  });
  try {
    return (await mse.data())[0];
  } finally {
    mse.dispose();
  }
}

export async function evaluateIdentification(
  ae: Autoencoder,
  world: SyntheticWorld,
  train: SyntheticSample,
  test: SyntheticSample,
  readout: ReadoutConfig,
  rng: Rng,
): Promise<IdentificationMetrics & { structure: Structure }> {
  const Z = world.latentDim;
  const ZHat = ae.latentDim;
  const A = world.agentRanges.length;
  const zTest = await encodeAll(ae, test.h, test.n);
  const pear = mcc(test.z, zTest, test.n, Z, ZHat, 'pearson');
  const spear = mcc(test.z, zTest, test.n, Z, ZHat, 'spearman');
  const nRead = Math.min(readout.samples, test.n);
  const zRead = tf.tensor2d(zTest.subarray(0, nRead * ZHat), [nRead, ZHat]);
  let structure: Structure;
  try {
    structure = await readStructure(ae, zRead, world.agentRanges, readout);
  } finally {
    zRead.dispose();
  }
  const support = supportScores(world.support, structure.elementSupport, world.stateDim, Z, ZHat, pear.perm);
  const blockSupport = supportScores(agentSupport(world), structure.agentSupport, A, Z, ZHat, pear.perm);
  const nTrain = Math.min(train.n, 2000);
  const zTrain = await encodeAll(ae, train.h.subarray(0, nTrain * world.stateDim), nTrain);
  const br2 = blockR2(
    { z: train.z.subarray(0, nTrain * Z), zHat: zTrain, n: nTrain },
    { z: test.z, zHat: zTest, n: test.n },
    Z,
    ZHat,
    world.latentAgents,
    structure.latentAgents,
    A,
    rng.fork('block-r2'),
  );
  const reconstruction = await reconstructionError(ae, test.h, test.n);
  const trueAlphaHistogram = new Array<number>(A + 1).fill(0);
  for (const m of world.latentAgents) trueAlphaHistogram[popcount(m)] += 1;
  return {
    mcc: pear.mcc,
    mccSpearman: spear.mcc,
    supportF1: support.f1,
    support,
    blockSupport,
    blockR2: br2.blockR2,
    blockR2Detail: br2,
    alphaHistogram: structure.alphaHistogram,
    trueAlphaHistogram,
    reconstruction,
    perm: pear.perm,
    structure,
  };
}

function popcount(m: number): number {
  let c = 0;
  for (let x = m; x; x >>= 1) c += x & 1;
  return c;
}
