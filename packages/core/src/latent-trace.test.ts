import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { readLatentTrace, traceInChunks, writeLatentTrace } from './latent-trace.js';
import type { Example } from './method.js';
import { writeTensorFile } from './tensor-file.js';

it('round-trips a latent trace and rejects other tensor files', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'lat-'));
  const trace = {
    source: 'latent',
    exampleIds: ['a', 'b'],
    slots: [
      { name: 'k0', rows: 2, width: 3, vectors: new Float32Array([1, 2, 3, 4, 5, 6]) },
      { name: 'k1', rows: 2, width: 3, vectors: new Float32Array(6).fill(7) },
    ],
  };
  await writeLatentTrace(join(dir, 'latents.bin'), trace, { method: 'soft-embedding' });
  const back = await readLatentTrace(join(dir, 'latents.bin'));
  expect(back.slots.map((s) => s.name)).toEqual(['k0', 'k1']);
  expect(Array.from(back.slots[0].vectors)).toEqual([1, 2, 3, 4, 5, 6]);
  expect(back.exampleIds).toEqual(['a', 'b']);
  expect(back.meta.method).toBe('soft-embedding');
  await writeTensorFile(join(dir, 'other.bin'), {}, { format: 'x' });
  await expect(readLatentTrace(join(dir, 'other.bin'))).rejects.toThrow(/other\.bin: not a Telepath latent file/);
  await expect(
    writeLatentTrace(join(dir, 'bad.bin'), {
      ...trace,
      slots: [{ name: 'x', rows: 2, width: 2, vectors: new Float32Array(3) }],
    }),
  ).rejects.toThrow(/slot x has 3 values/);
});

it('traceInChunks puts chunk rows in example order, the same for any chunk size', async () => {
  const examples: Example[] = Array.from({ length: 5 }, (_, i) => ({
    id: `e${i}`,
    question: '',
    steps: [],
    answer: '',
  }));
  // [b, K = 2, W = 3]: example i's slot k holds 10·i + k in every entry.
  const read = async (part: Example[]) =>
    Float32Array.from(
      part.flatMap((ex) => [0, 1].flatMap((k) => [0, 1, 2].map(() => 10 * Number(ex.id.slice(1)) + k))),
    );
  const one = await traceInChunks(examples, { source: 's', slotNames: ['a', 'b'], width: 3, chunk: 64 }, read);
  const two = await traceInChunks(examples, { source: 's', slotNames: ['a', 'b'], width: 3, chunk: 2 }, read);
  expect(two).toEqual(one);
  expect(Array.from(one.slots[1].vectors.subarray(6, 9))).toEqual([21, 21, 21]);
  expect(one.slots.map((s) => [s.name, s.rows, s.width])).toEqual([
    ['a', 5, 3],
    ['b', 5, 3],
  ]);
  expect(one.exampleIds).toEqual(['e0', 'e1', 'e2', 'e3', 'e4']);
  await expect(
    traceInChunks(examples, { source: 's', slotNames: ['a'], width: 3, chunk: 2 }, async () => new Float32Array(5)),
  ).rejects.toThrow(/read 5 values for 2 examples × 1 slots × 3/);
});
