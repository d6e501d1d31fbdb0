import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { readLatentTrace, writeLatentTrace } from './latent-trace.js';
import { writeTensorFile } from './tensor-file.js';

it('round-trips a latent trace and rejects other tensor files', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'lat-'));
  const trace = { source: 'latent', exampleIds: ['a', 'b'], slots: [{ name: 'k0', rows: 2, width: 3, vectors: new Float32Array([1, 2, 3, 4, 5, 6]) }, { name: 'k1', rows: 2, width: 3, vectors: new Float32Array(6).fill(7) }] };
  await writeLatentTrace(join(dir, 'latents.bin'), trace, { method: 'soft-embedding' });
  const back = await readLatentTrace(join(dir, 'latents.bin'));
  expect(back.slots.map((s) => s.name)).toEqual(['k0', 'k1']);
  expect(Array.from(back.slots[0].vectors)).toEqual([1, 2, 3, 4, 5, 6]);
  expect(back.exampleIds).toEqual(['a', 'b']);
  expect(back.meta.method).toBe('soft-embedding');
  await writeTensorFile(join(dir, 'other.bin'), {}, { format: 'x' });
  await expect(readLatentTrace(join(dir, 'other.bin'))).rejects.toThrow(/other\.bin: not a Telepath latent file/);
  await expect(writeLatentTrace(join(dir, 'bad.bin'), { ...trace, slots: [{ name: 'x', rows: 2, width: 2, vectors: new Float32Array(3) }] })).rejects.toThrow(/slot x has 3 values/);
});
