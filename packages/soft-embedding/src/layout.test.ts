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

  it('pads training batches to few widths (core paddedWidth): more left and right padding, masked', () => {
    const long = Array.from({ length: 17 }, (_, i) => 1 + (i % 5)); // 17 prefix tokens
    const rows = [
      { prefix: long, latents: 1, suffix: [{ ids: [4, 5], trained: true }] },
      { prefix: [1, 2], latents: 1, suffix: [{ ids: [6], trained: true }] },
    ];
    const train = alignBatch(rows, { padId: PAD, latentId: LAT, contextLength: 64, teacherForcing: true });
    expect(train.latentStart).toBe(18); // 17 rounded up to a multiple of 2
    expect(train.ids.shape).toEqual([2, 20]); // 18 + 1 slot + 1 input (5 is only a target): 20, even
    const ids = train.ids.arraySync();
    const mask = train.attentionMask.arraySync();
    const pos = train.positions.arraySync();
    expect(ids[0].slice(0, 2)).toEqual([PAD, 1]); // one column of left padding before the long prompt
    expect(mask[0].slice(0, 2)).toEqual([0, 1]);
    expect(pos[0].slice(1, 4)).toEqual([0, 1, 2]); // positions count from the first real token
    expect(ids[0].slice(18)).toEqual([LAT, 4]);
    expect(ids[1].slice(16)).toEqual([1, 2, LAT, PAD]); // 6 is only a target
    expect(mask[1].reduce((a, v) => a + v, 0)).toBe(3);
    expect(train.nextPositions).toEqual([19, 3]);
    disposeAligned(train);
    const three = alignBatch([{ ...rows[0], suffix: [{ ids: [4, 5, 6], trained: true }] }], {
      padId: PAD,
      latentId: LAT,
      contextLength: 64,
      teacherForcing: true,
    });
    expect(three.ids.shape).toEqual([1, 22]); // 18 + 1 slot + 2 inputs = 21, rounded up to 22
    expect(three.attentionMask.arraySync()[0].slice(20)).toEqual([1, 0]);
    disposeAligned(three);
    const gen = alignBatch([{ prefix: long, latents: 1, suffix: [] }], {
      padId: PAD,
      latentId: LAT,
      contextLength: 64,
      teacherForcing: false,
    });
    expect(gen.latentStart).toBe(17); // generation keeps its exact width
    disposeAligned(gen);
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
