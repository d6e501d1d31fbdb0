/**
 * A compact binary file of named tensors with a JSON header, used for checkpoints and for the
 * latent vectors methods store in run records:
 *   "TLPTNSR2" | u32 header bytes | header JSON (utf8) | zero padding to 8 | raw little-endian data
 *   | sha256 of every byte before it (32 bytes)
 * The header lists each tensor's name, dtype, shape and byte range. One checksum covers the whole
 * file, header included, so any flipped bit, truncation or appended byte is refused on load,
 * naming the file; the header's entries are also checked to tile the data exactly. Files of the
 * first format ("TLPTNSR1", whose sha256 covered the data only) still read, with the same checks
 * on the header's layout. Writes are atomic.
 */
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import { writeFileAtomic } from './atomic.js';
import { fileError, UserError } from './errors.js';

const MAGIC = 'TLPTNSR2';
const MAGIC_V1 = 'TLPTNSR1';
const SHA_BYTES = 32;
const DTYPES = ['float32', 'int32'] as const;

export type StoredDtype = (typeof DTYPES)[number];
export interface StoredTensor {
  dtype: StoredDtype;
  shape: number[];
  values: Float32Array | Int32Array;
}
interface HeaderEntry {
  name: string;
  dtype: StoredDtype;
  shape: number[];
  offset: number;
  bytes: number;
}
interface Header {
  meta: unknown;
  tensors: HeaderEntry[];
  dataSha256?: string;
}

export async function writeTensorFile(
  path: string,
  tensors: Map<string, StoredTensor> | Record<string, StoredTensor>,
  meta: unknown,
): Promise<void> {
  const entries = tensors instanceof Map ? [...tensors.entries()] : Object.entries(tensors);
  const list: HeaderEntry[] = [];
  let offset = 0;
  for (const [name, t] of entries) {
    const n = t.shape.reduce((a, b) => a * b, 1);
    if (n !== t.values.length)
      throw new Error(`writeTensorFile ${path}: tensor ${name} has ${t.values.length} values for shape [${t.shape}]`);
    list.push({ name, dtype: t.dtype, shape: t.shape, offset, bytes: t.values.byteLength });
    offset += t.values.byteLength;
  }
  const header: Header = { meta, tensors: list };
  const headerBytes = Buffer.from(JSON.stringify(header), 'utf8');
  const pad = (8 - ((MAGIC.length + 4 + headerBytes.length) % 8)) % 8;
  const dstart = MAGIC.length + 4 + headerBytes.length + pad;
  const file = Buffer.alloc(dstart + offset + SHA_BYTES);
  file.write(MAGIC, 0, 'ascii');
  file.writeUInt32LE(headerBytes.length, MAGIC.length);
  headerBytes.copy(file, MAGIC.length + 4);
  entries.forEach(([, t], i) =>
    Buffer.from(t.values.buffer, t.values.byteOffset, t.values.byteLength).copy(file, dstart + list[i].offset),
  );
  createHash('sha256')
    .update(file.subarray(0, dstart + offset))
    .digest()
    .copy(file, dstart + offset);
  await writeFileAtomic(path, file);
}

export async function readTensorFile(path: string): Promise<{ meta: unknown; tensors: Map<string, StoredTensor> }> {
  let buf: Buffer;
  try {
    buf = await fs.readFile(path);
  } catch (e) {
    throw fileError('read', path, e);
  }
  const bad = (why: string) => new UserError(`${path} is corrupt or not a Telepath tensor file: ${why}`);
  const magic = buf.length >= MAGIC.length + 4 ? buf.toString('ascii', 0, MAGIC.length) : '';
  if (magic !== MAGIC && magic !== MAGIC_V1) throw bad(`missing magic "${MAGIC}"`);
  let body = buf;
  if (magic === MAGIC) {
    // The checksum first: nothing in a damaged header (a length, an offset, a step) is trusted.
    if (buf.length < MAGIC.length + 4 + SHA_BYTES)
      throw bad(`${buf.length} bytes is too short to hold a header and its checksum (truncated?)`);
    body = buf.subarray(0, buf.length - SHA_BYTES);
    const sha = createHash('sha256').update(body).digest();
    if (!sha.equals(buf.subarray(buf.length - SHA_BYTES)))
      throw bad(
        `sha256 of the file ${sha.toString('hex').slice(0, 12)}… does not match the one stored at its end (truncated, or bits changed)`,
      );
  }
  const hlen = body.readUInt32LE(MAGIC.length);
  const hstart = MAGIC.length + 4;
  if (hstart + hlen > body.length)
    throw bad(`header of ${hlen} bytes runs past the end of the file (${buf.length} bytes; truncated?)`);
  let header: Header;
  try {
    header = JSON.parse(body.toString('utf8', hstart, hstart + hlen)) as Header;
  } catch (e) {
    throw bad(`header is not JSON (${(e as Error).message})`);
  }
  const dstart = hstart + hlen + ((8 - ((hstart + hlen) % 8)) % 8);
  const data = body.subarray(dstart);
  const layout = checkLayout(header, data.length);
  if (layout) throw bad(layout);
  if (magic === MAGIC_V1) {
    const sha = createHash('sha256').update(data).digest('hex');
    if (sha !== header.dataSha256)
      throw bad(
        `data sha256 ${sha.slice(0, 12)}… does not match the header's ${String(header.dataSha256).slice(0, 12)}…`,
      );
  }
  const tensors = new Map<string, StoredTensor>();
  for (const e of header.tensors) {
    const copy = new Uint8Array(e.bytes);
    copy.set(data.subarray(e.offset, e.offset + e.bytes));
    const values = e.dtype === 'int32' ? new Int32Array(copy.buffer) : new Float32Array(copy.buffer);
    tensors.set(e.name, { dtype: e.dtype, shape: e.shape, values });
  }
  return { meta: header.meta, tensors };
}

/** What is wrong with the header's tensor list (null when its entries tile `dataBytes` exactly, in order). */
function checkLayout(header: Header, dataBytes: number): string | null {
  if (typeof header !== 'object' || header === null || !Array.isArray(header.tensors))
    return 'header has no tensor list';
  let offset = 0;
  const names = new Set<string>();
  for (const [i, e] of header.tensors.entries()) {
    const at = `tensor ${i} (${JSON.stringify(e?.name)})`;
    if (typeof e?.name !== 'string' || names.has(e.name)) return `${at}: missing or repeated name`;
    names.add(e.name);
    if (!DTYPES.includes(e.dtype))
      return `${at}: dtype ${JSON.stringify(e.dtype)}, expected one of ${DTYPES.join(', ')}`;
    if (!Array.isArray(e.shape) || !e.shape.every((d) => Number.isInteger(d) && d >= 0))
      return `${at}: shape ${JSON.stringify(e.shape)} is not a list of sizes`;
    const bytes = 4 * e.shape.reduce((a, b) => a * b, 1);
    if (e.bytes !== bytes) return `${at}: ${e.bytes} bytes listed for shape [${e.shape}] (${bytes} expected)`;
    if (e.offset !== offset) return `${at}: offset ${e.offset}, expected ${offset} (the tensors follow each other)`;
    offset += bytes;
  }
  return offset === dataBytes ? null : `data is ${dataBytes} bytes, the header lists ${offset} (truncated?)`;
}
