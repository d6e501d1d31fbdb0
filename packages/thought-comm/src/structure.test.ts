import * as tf from '@tensorflow/tfjs-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { initBackend } from '@telepath/core';
import { expectNoLeak } from '@telepath/core/testing';
import { DEFAULT_READOUT_CONFIG } from './config.js';
import {
  maskName,
  pairDecomposition,
  readStructure,
  relevantThoughts,
  structureFromStrengths,
  structureFromSupport,
} from './structure.js';
import { tinyAutoencoder, tinyRanges } from './testing.js';

beforeAll(async () => {
  await initBackend('cpu', { quiet: true });
});

describe('structure read-off', () => {
  // 3 agents × 4 latents; s_kj chosen so that latent 0 is shared by all, 1 by A and B, 2 private
  // to C, 3 dead (tiny everywhere).
  const s = Float32Array.from([
    1.0,
    0.8,
    0.01,
    1e-4, // agent A
    0.9,
    0.7,
    0.02,
    1e-4, // agent B
    0.7,
    0.05,
    0.6,
    1e-4, // agent C
  ]);
  const m = Float32Array.from([1, 0.05, 0, 0, 0.2, 1, 0.5, 0]); // 2 rows × 4 latents
  const st = structureFromStrengths(m, s, 3, 2, 4, DEFAULT_READOUT_CONFIG);

  it('thresholds agent relevance per latent, with a floor for dead latents', () => {
    expect(st.latentAgents).toEqual([0b111, 0b011, 0b100, 0]);
    expect(st.agreement).toEqual([3, 2, 1, 0]);
    expect(st.alphaHistogram).toEqual([1, 1, 1, 1]);
    expect(maskName(0b011, 3)).toBe('AB');
    expect(maskName(0, 3)).toBe('none');
  });

  it('thresholds elements per row relative to the row maximum', () => {
    expect([...st.elementSupport]).toEqual([1, 0, 0, 0, 1, 1, 1, 0]);
  });

  it('gives relevant, shared and private thoughts for any pair', () => {
    expect(relevantThoughts(st, 2)).toEqual([0, 2]);
    expect(pairDecomposition(st, 0, 1)).toEqual({ shared: [0, 1], privateA: [], privateB: [], irrelevant: [2, 3] });
    expect(pairDecomposition(st, 0, 2)).toEqual({ shared: [0], privateA: [1], privateB: [2], irrelevant: [3] });
    expect(() => pairDecomposition(st, 0, 3)).toThrow(/outside/);
  });

  it('reads a decoder whose output block ignores a latent as not relevant to that agent', async () => {
    const ae = tinyAutoencoder({ decoderHidden: [] }); // linear decoder: J = Wᵀ, H = 6, Z = 3
    // agent 0 = rows 0..2 use latents 0, 1; agent 1 = rows 3..5 use latents 1, 2
    const w = Float32Array.from([1, 1, 1, 0, 0, 0, 0.5, 0.5, 0.5, 1, 1, 1, 0, 0, 0, 1, 1, 1]);
    ae.decoder[0].w.assign(tf.tensor2d(w, [3, 6]));
    const z = tf.zeros([4, 3]) as tf.Tensor2D;
    const out = await expectNoLeak(() => readStructure(ae, z, tinyRanges(), DEFAULT_READOUT_CONFIG));
    expect(out.latentAgents).toEqual([0b01, 0b11, 0b10]);
    expect(pairDecomposition(out, 0, 1)).toEqual({ shared: [1], privateA: [0], privateB: [2], irrelevant: [] });
    z.dispose();
    ae.dispose();
  });

  it('paper rule: non-zero entries at some sample, then the ∃-row rule — private thoughts stay private, any non-zero row shares', () => {
    // 3 agents × 2 rows, 4 thoughts: 0 shared by all, 1 private to A, 2 private to B, 3 shared by B and C.
    // max_n |J_ij| [6, 4]; exact zeros outside the support, except one weak entry (5 % of the max).
    const Z = 4;
    const ranges: [number, number][] = [
      [0, 2],
      [2, 4],
      [4, 6],
    ];
    const elementMax = Float32Array.from([
      1.0,
      0.6,
      0,
      0, // A row 0
      0,
      0.9,
      0,
      0, // A row 1
      0.5,
      0,
      0.8,
      0, // B row 0
      0,
      0,
      0.7,
      0.4, // B row 1
      0.3,
      0,
      0,
      0.9, // C row 0
      0,
      0,
      0,
      0.002, // C row 1 (0.2 % of the max: numerically zero)
    ]);
    const zeros = new Float32Array(6 * Z);
    const st = structureFromSupport(elementMax, zeros, new Float32Array(3 * Z), ranges, Z, 0.01);
    expect(st.latentAgents.map((m) => maskName(m, 3))).toEqual(['ABC', 'A', 'B', 'BC']);
    expect(st.agreement).toEqual([3, 1, 1, 2]);
    expect(st.alphaHistogram).toEqual([0, 2, 1, 1]);
    expect(pairDecomposition(st, 0, 1)).toEqual({ shared: [0], privateA: [1], privateB: [2, 3], irrelevant: [] });
    expect(st.elementSupport[5 * Z + 3]).toBe(0);
    // A weak but non-zero use of thought 1 by agent C's row makes it shared under the paper's rule.
    const weak = elementMax.slice();
    weak[4 * Z + 1] = 0.05;
    expect(
      maskName(structureFromSupport(weak, zeros, new Float32Array(3 * Z), ranges, Z, 0.01).latentAgents[1], 3),
    ).toBe('AC');
  });
});
