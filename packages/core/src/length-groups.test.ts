import * as tf from '@tensorflow/tfjs-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { initBackend } from './backend.js';
import { groupTokenMean, lengthGroups } from './length-groups.js';
import { expectNoLeak } from './testing.js';

beforeAll(async () => {
  await initBackend('cpu', { quiet: true });
});

describe('length groups', () => {
  it('cuts the rows, sorted by length, into near-equal groups that cover every row once', () => {
    expect(lengthGroups([5, 1, 9, 3], 2)).toEqual([
      [1, 3],
      [0, 2],
    ]);
    expect(lengthGroups([5, 1, 9], 1)).toEqual([[0, 1, 2]]);
    expect(lengthGroups([5, 1], 8)).toEqual([[1], [0]]);
    const g = lengthGroups(
      Array.from({ length: 33 }, (_, i) => (i * 7) % 13),
      4,
    );
    expect(g.map((x) => x.length)).toEqual([8, 8, 8, 9]);
    expect(g.flat().sort((a, b) => a - b)).toEqual(Array.from({ length: 33 }, (_, i) => i));
  });

  it("weights each group's mean by its trained targets, so the mean is over every target", async () => {
    // targets 1 and 3 with mean loss 2 and 6: (1·2 + 3·6) / 4 = 5
    const mean = groupTokenMean([
      { loss: tf.scalar(2), targets: 1 },
      { loss: tf.scalar(6), targets: 3 },
    ]);
    expect(mean.dataSync()[0]).toBeCloseTo(5, 6);
    const one = tf.scalar(3);
    expect(groupTokenMean([{ loss: one, targets: 7 }])).toBe(one); // one group: its own mean, no op
    const parts = [
      { loss: tf.scalar(1), targets: 0 },
      { loss: tf.scalar(1), targets: 2 },
    ];
    const out = await expectNoLeak(() => groupTokenMean(parts), { allowed: 1 }); // the mean itself
    tf.dispose([out, mean, one, ...parts.map((p) => p.loss)]);
  });
});
