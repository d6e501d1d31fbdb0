/**
 * A compact binary file of named tensors with a JSON header, used for checkpoints and for the
 * latent vectors methods store in run records:
 *   "TLPTNSR1" | u32 header bytes | header JSON (utf8) | zero padding to 8 | raw little-endian data
 * The header lists each tensor's name, dtype, shape and byte range plus the sha256 of the data,
 * so truncation or corruption is detected on load. Writes are atomic.
 */
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import { writeFileAtomic } from './atomic.js';

const MAGIC = 'TLPTNSR1';

export type StoredDtype = 'float32' | 'int32';
export interface StoredTensor {
  dtype: StoredDtype;
  shape: number[];
  values: Float32Array | Int32Array;
}
interface HeaderEntry { name: string; dtype: StoredDtype; shape: number[]; offset: number; bytes: number }
interface Header { meta: unknown; tensors: HeaderEntry[]; dataSha256: string }

export async function writeTensorFile(path: string, tensors: Map<string, StoredTensor> | Record<string, StoredTensor>, meta: unknown): Promise<void> {
  const entries = tensors instanceof Map ? [...tensors.entries()] : Object.entries(tensors);
  const list: HeaderEntry[] = [];
  let offset = 0;
  for (const [name, t] of entries) {
    const n = t.shape.reduce((a, b) => a * b, 1);
    if (n !== t.values.length) throw new Error(`writeTensorFile ${path}: tensor ${name} has ${t.values.length} values for shape [${t.shape}]`);
    list.push({ name, dtype: t.dtype, shape: t.shape, offset, bytes: t.values.byteLength });
    offset += t.values.byteLength;
  }
  const data = Buffer.alloc(offset);
  entries.forEach(([, t], i) => Buffer.from(t.values.buffer, t.values.byteOffset, t.values.byteLength).copy(data, list[i].offset));
  const header: Header = { meta, tensors: list, dataSha256: createHash('sha256').update(data).digest('hex') };
  const headerBytes = Buffer.from(JSON.stringify(header), 'utf8');
  const pad = (8 - ((MAGIC.length + 4 + headerBytes.length) % 8)) % 8;
  const prefix = Buffer.alloc(MAGIC.length + 4);
  prefix.write(MAGIC, 0, 'ascii');
  prefix.writeUInt32LE(headerBytes.length, MAGIC.length);
  await writeFileAtomic(path, Buffer.concat([prefix, headerBytes, Buffer.alloc(pad), data]));
}

export async function readTensorFile(path: string): Promise<{ meta: unknown; tensors: Map<string, StoredTensor> }> {
  let buf: Buffer;
  try {
    buf = await fs.readFile(path);
  } catch (e) {
    throw new Error(`cannot read ${path}: ${(e as Error).message}`);
  }
  const bad = (why: string) => new Error(`${path} is corrupt or not a Telepath tensor file: ${why}`);
  if (buf.length < MAGIC.length + 4 || buf.toString('ascii', 0, MAGIC.length) !== MAGIC) throw bad(`missing magic "${MAGIC}"`);
  const hlen = buf.readUInt32LE(MAGIC.length);
  const hstart = MAGIC.length + 4;
  if (hstart + hlen > buf.length) throw bad(`header of ${hlen} bytes runs past the end of the file (${buf.length} bytes)`);
  let header: Header;
  try {
    header = JSON.parse(buf.toString('utf8', hstart, hstart + hlen)) as Header;
  } catch (e) {
    throw bad(`header is not JSON (${(e as Error).message})`);
  }
  const dstart = hstart + hlen + ((8 - ((hstart + hlen) % 8)) % 8);
  const data = buf.subarray(dstart);
  const total = header.tensors.reduce((a, t) => a + t.bytes, 0);
  if (data.length !== total) throw bad(`data is ${data.length} bytes, the header lists ${total} (truncated?)`);
  const sha = createHash('sha256').update(data).digest('hex');
  if (sha !== header.dataSha256) throw bad(`data sha256 ${sha.slice(0, 12)}… does not match the header's ${header.dataSha256.slice(0, 12)}…`);
  const tensors = new Map<string, StoredTensor>();
  for (const e of header.tensors) {
    const copy = new Uint8Array(e.bytes);
    copy.set(data.subarray(e.offset, e.offset + e.bytes));
    const values = e.dtype === 'int32' ? new Int32Array(copy.buffer) : new Float32Array(copy.buffer);
    tensors.set(e.name, { dtype: e.dtype, shape: e.shape, values });
  }
  return { meta: header.meta, tensors };
}
