import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, expect, it } from 'vitest';
import { loadGpt2, readGpt2Weights } from './gpt2.js';
import { halfToFloat, parseSafetensors, readSafetensors, writeSafetensors } from './safetensors.js';

const TINY = fileURLToPath(new URL('./__fixtures__/tiny-gpt2/', import.meta.url));
const scratch = mkdtempSync(path.join(tmpdir(), 'telepath-safetensors-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** A copy of the tiny GPT-2 folder whose model.safetensors is replaced by `bytes` (or removed). */
function folderWith(name: string, bytes: Uint8Array | null, keep = ['config.json', 'tokenizer.json']): string {
  const dir = path.join(scratch, name);
  mkdirSync(dir, { recursive: true });
  for (const f of keep) copyFileSync(path.join(TINY, f), path.join(dir, f));
  if (bytes) writeFileSync(path.join(dir, 'model.safetensors'), bytes);
  return dir;
}

function header(json: object): Uint8Array {
  const text = Buffer.from(JSON.stringify(json));
  const length = Buffer.alloc(8);
  length.writeBigUInt64LE(BigInt(text.length));
  return Buffer.concat([length, text]);
}

it('reads F32, F16 and BF16 into float32 and writes F32 that reads back exactly', async () => {
  const f16 = Buffer.from(new Uint16Array([0x3c00, 0xc000, 0x0001, 0x7c00]).buffer); // 1, −2, 2^−24, +inf
  const bf16 = Buffer.from(new Uint16Array([0x3f80, 0xbfc0]).buffer); // 1, −1.5
  const bytes = Buffer.concat([
    header({
      a: { dtype: 'F16', shape: [2, 2], data_offsets: [0, 8] },
      b: { dtype: 'BF16', shape: [2], data_offsets: [8, 12] },
    }),
    f16,
    bf16,
  ]);
  const { tensors } = parseSafetensors(bytes, 'x.safetensors');
  expect([...tensors.get('a')!.values]).toEqual([1, -2, 2 ** -24, Infinity]);
  expect([...tensors.get('b')!.values]).toEqual([1, -1.5]);
  expect(halfToFloat(0x7e00)).toBeNaN();
  const file = path.join(scratch, 'w.safetensors');
  const values = new Float32Array([0.1, -3, 1e-30, 7]);
  await writeSafetensors(file, [['w', { shape: [2, 2], values }]]);
  const back = await readSafetensors(file);
  expect(back.tensors.get('w')).toEqual({ dtype: 'F32', shape: [2, 2], values });
  expect(readFileSync(file).readBigUInt64LE(0) % 8n).toBe(0n); // header padded to 8 bytes
});

it('bad folders and files give errors naming the folder, the file, the tensor and the expected shape', async () => {
  const original = readFileSync(path.join(TINY, 'model.safetensors'));
  await expect(readGpt2Weights(folderWith('no-weights', null))).rejects.toThrow(/no-weights: no model\.safetensors/);
  await expect(loadGpt2(folderWith('no-tokenizer', original, ['config.json']))).rejects.toThrow(
    /no-tokenizer: no tokenizer\.json, and no vocab\.json \+ merges\.txt/,
  );
  await expect(readGpt2Weights(folderWith('truncated', original.subarray(0, original.length - 100)))).rejects.toThrow(
    /truncated\/model\.safetensors is not a valid safetensors file: tensor .* run past the data section .*truncated/,
  );
  await expect(readGpt2Weights(folderWith('short', original.subarray(0, 5)))).rejects.toThrow(
    /shorter than the 8-byte header length/,
  );
  const i64 = Buffer.concat([
    header({ 'wte.weight': { dtype: 'I64', shape: [1], data_offsets: [0, 8] } }),
    Buffer.alloc(8),
  ]);
  await expect(readGpt2Weights(folderWith('int64', i64))).rejects.toThrow(
    /tensor wte\.weight has dtype I64; Telepath reads F32, F16, BF16/,
  );

  const { tensors } = await readSafetensors(path.join(TINY, 'model.safetensors'));
  const rewrite = async (name: string, edit: (m: Map<string, { shape: number[]; values: Float32Array }>) => void) => {
    const m = new Map([...tensors].map(([k, t]) => [k, { shape: t.shape, values: t.values }]));
    edit(m);
    const dir = folderWith(name, null);
    await writeSafetensors(path.join(dir, 'model.safetensors'), m);
    return dir;
  };
  const wrongShape = await rewrite('wrong-shape', (m) =>
    m.set('transformer.h.1.attn.c_attn.weight', { shape: [32, 64], values: new Float32Array(32 * 64) }),
  );
  await expect(readGpt2Weights(wrongShape)).rejects.toThrow(
    /wrong-shape\/model\.safetensors: tensor h\.1\.attn\.c_attn\.weight has shape \[32,64\], expected \[32,96\]/,
  );
  const missing = await rewrite('missing', (m) => m.delete('transformer.h.1.ln_2.weight'));
  await expect(readGpt2Weights(missing)).rejects.toThrow(
    /missing\/model\.safetensors: missing tensor h\.1\.ln_2\.weight .*expected shape \[32\]/,
  );
  const untied = await rewrite('untied', (m) =>
    m.set('lm_head.weight', { shape: [353, 32], values: new Float32Array(353 * 32) }),
  );
  await expect(readGpt2Weights(untied)).rejects.toThrow(/lm_head\.weight differs from wte\.weight/);
  const extra = await rewrite('extra', (m) =>
    m.set('transformer.h.2.ln_1.weight', { shape: [32], values: new Float32Array(32) }),
  );
  await expect(readGpt2Weights(extra)).rejects.toThrow(
    /unexpected tensors h\.2\.ln_1\.weight for a GPT-2 with 2 layers/,
  );

  const badConfig = folderWith('bad-config', original);
  writeFileSync(
    path.join(badConfig, 'config.json'),
    JSON.stringify({
      ...JSON.parse(readFileSync(path.join(TINY, 'config.json'), 'utf8')),
      activation_function: 'relu',
    }),
  );
  await expect(readGpt2Weights(badConfig)).rejects.toThrow(
    /bad-config\/config\.json: activation_function "relu" is not supported/,
  );
});
