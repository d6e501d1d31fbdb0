import * as tf from '@tensorflow/tfjs-core';
import { initBackend } from '@telepath/core';
import { beforeAll, describe, expect, it } from 'vitest';
import { alignBatch, disposeAligned } from './layout.js';

beforeAll(async () => {
  await initBackend('cpu', { quiet: true });
});

const PAD = 0;
const LAT = 9;

describe('alignBatch', () => {
  it('aligns the latent slots in one column range, masks padding, counts positions per row', () => {
    const b = alignBatch(
      [
        {
          prefix: [1, 2, 3],
          latents: 2,
          suffix: [
            { ids: [7], trained: false },
            { ids: [4, 5], trained: true },
          ],
        },
        {
          prefix: [1, 2],
          latents: 2,
          suffix: [
            { ids: [7], trained: false },
            { ids: [6], trained: true },
          ],
        },
      ],
      { padId: PAD, latentId: LAT, contextLength: 16, teacherForcing: true },
    );
    expect(b.latentStart).toBe(3);
    // row 0: 1 2 3 L L 7 4 (5 is only a target); row 1: pad 1 2 L L 7 (6 only a target), then pad
    expect(b.ids.arraySync()).toEqual([
      [1, 2, 3, LAT, LAT, 7, 4],
      [PAD, 1, 2, LAT, LAT, 7, PAD],
    ]);
    expect(b.attentionMask.arraySync()).toEqual([
      [1, 1, 1, 1, 1, 1, 1],
      [0, 1, 1, 1, 1, 1, 0],
    ]);
    expect(b.positions.arraySync()).toEqual([
      [0, 1, 2, 3, 4, 5, 6],
      [0, 0, 1, 2, 3, 4, 0],
    ]);
    expect(b.targets!.arraySync()).toEqual([
      [2, 3, LAT, LAT, 7, 4, 5],
      [PAD, 2, LAT, LAT, 7, 6, PAD],
    ]);
    expect(b.lossMask!.arraySync()).toEqual([
      [0, 0, 0, 0, 0, 1, 1],
      [0, 0, 0, 0, 0, 1, 0],
    ]);
    expect(b.nextPositions).toEqual([7, 5]);
    disposeAligned(b);
  });

  it('generation batches keep whole sequences, all ending in the last column', () => {
    const b = alignBatch(
      [
        { prefix: [1, 2, 3], latents: 1, suffix: [{ ids: [7], trained: false }] },
        { prefix: [1], latents: 1, suffix: [{ ids: [7], trained: false }] },
      ],
      { padId: PAD, latentId: LAT, contextLength: 16, teacherForcing: false },
    );
    expect(b.ids.arraySync()).toEqual([
      [1, 2, 3, LAT, 7],
      [PAD, PAD, 1, LAT, 7],
    ]);
    expect(b.nextPositions).toEqual([5, 3]);
    expect(b.targets).toBeUndefined();
    disposeAligned(b);
    expect(() =>
      alignBatch(
        [
          { prefix: [1], latents: 1, suffix: [] },
          { prefix: [1], latents: 2, suffix: [] },
        ],
        { padId: PAD, latentId: LAT, contextLength: 16, teacherForcing: false },
      ),
    ).toThrow(/same column/);
    expect(() =>
      alignBatch([{ prefix: [1, 2, 3], latents: 4, suffix: [] }], {
        padId: PAD,
        latentId: LAT,
        contextLength: 6,
        teacherForcing: false,
      }),
    ).toThrow(/exceeds the context length 6/);
    expect(tf.memory().numTensors).toBe(0);
  });
});
