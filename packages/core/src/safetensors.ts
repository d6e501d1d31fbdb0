/**
 * The safetensors format, read and written directly (Hugging Face's weight files):
 *   u64 little-endian header length N | N bytes of JSON header | raw little-endian tensor data
 * The header maps each tensor name to { dtype, shape, data_offsets: [begin, end] } (offsets into
 * the data section), plus an optional "__metadata__" of string values. F32, F16 and BF16 tensors
 * are read into float32 (the only dtype Telepath trains in); other dtypes are refused by name.
 * Writing produces F32 tensors with the header padded by spaces to a multiple of 8 bytes.
 * The format is a length, a JSON header and raw bytes, and the F16/BF16 → float32 conversion is
 * needed either way, so it is read here rather than through another dependency.
 */
import { promises as fs } from 'node:fs';
import { writeFileAtomic } from './atomic.js';

export type SafetensorsDtype = 'F32' | 'F16' | 'BF16';
export const SAFETENSORS_DTYPES: readonly SafetensorsDtype[] = ['F32', 'F16', 'BF16'];
const BYTES: Record<SafetensorsDtype, number> = { F32: 4, F16: 2, BF16: 2 };

export interface SafeTensor {
  /** The dtype stored in the file; `values` are always float32. */
  dtype: SafetensorsDtype;
  shape: number[];
  values: Float32Array;
}

export interface SafetensorsFile {
  tensors: Map<string, SafeTensor>;
  metadata: Record<string, string>;
}

interface HeaderEntry {
  dtype: string;
  shape: number[];
  data_offsets: [number, number];
}

/** Reads every tensor of a safetensors file into float32; errors name the file and the tensor. */
export async function readSafetensors(file: string): Promise<SafetensorsFile> {
  let buf: Buffer;
  try {
    buf = await fs.readFile(file);
  } catch (e) {
    throw new Error(`cannot read ${file}: ${(e as Error).message}`);
  }
  return parseSafetensors(buf, file);
}

export function parseSafetensors(buf: Uint8Array, file: string): SafetensorsFile {
  const bad = (why: string) => new Error(`${file} is not a valid safetensors file: ${why}`);
  if (buf.length < 8) throw bad(`${buf.length} bytes, shorter than the 8-byte header length (truncated?)`);
  const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  const headerLength = Number(view.getBigUint64(0, true));
  if (8 + headerLength > buf.length)
    throw bad(`header of ${headerLength} bytes runs past the end of the file (${buf.length} bytes; truncated?)`);
  let header: Record<string, unknown>;
  try {
    header = JSON.parse(new TextDecoder().decode(buf.subarray(8, 8 + headerLength))) as Record<string, unknown>;
  } catch (e) {
    throw bad(`header is not JSON (${(e as Error).message})`);
  }
  if (header === null || typeof header !== 'object' || Array.isArray(header)) throw bad('header is not a JSON object');
  const data = buf.subarray(8 + headerLength);
  const tensors = new Map<string, SafeTensor>();
  let metadata: Record<string, string> = {};
  for (const [name, raw] of Object.entries(header)) {
    if (name === '__metadata__') {
      metadata = (raw ?? {}) as Record<string, string>;
      continue;
    }
    const e = raw as Partial<HeaderEntry>;
    if (!e || typeof e.dtype !== 'string' || !Array.isArray(e.shape) || !Array.isArray(e.data_offsets)) {
      throw bad(`tensor ${name}: header entry must have dtype, shape and data_offsets`);
    }
    if (!SAFETENSORS_DTYPES.includes(e.dtype as SafetensorsDtype)) {
      throw bad(
        `tensor ${name} has dtype ${e.dtype}; Telepath reads ${SAFETENSORS_DTYPES.join(', ')} (converted to float32)`,
      );
    }
    const dtype = e.dtype as SafetensorsDtype;
    const [begin, end] = e.data_offsets;
    const count = e.shape.reduce((a, b) => a * b, 1);
    if (end - begin !== count * BYTES[dtype]) {
      throw bad(
        `tensor ${name}: data_offsets [${begin}, ${end}] hold ${end - begin} bytes, shape [${e.shape}] of ${dtype} needs ${count * BYTES[dtype]}`,
      );
    }
    if (begin < 0 || end > data.length) {
      throw bad(
        `tensor ${name}: data_offsets [${begin}, ${end}] run past the data section (${data.length} bytes; truncated?)`,
      );
    }
    tensors.set(name, { dtype, shape: e.shape, values: toFloat32(data.subarray(begin, end), dtype) });
  }
  return { tensors, metadata };
}

/** Writes float32 tensors (names in the given order) atomically as an F32 safetensors file. */
export async function writeSafetensors(
  file: string,
  tensors: Iterable<[string, { shape: number[]; values: Float32Array }]>,
  metadata: Record<string, string> = { format: 'pt' },
): Promise<void> {
  const header: Record<string, unknown> = { __metadata__: metadata };
  const blobs: Uint8Array[] = [];
  let offset = 0;
  for (const [name, t] of tensors) {
    const count = t.shape.reduce((a, b) => a * b, 1);
    if (count !== t.values.length)
      throw new Error(`writeSafetensors ${file}: tensor ${name} has ${t.values.length} values for shape [${t.shape}]`);
    const bytes = new Uint8Array(t.values.buffer, t.values.byteOffset, t.values.byteLength); // little-endian on every platform Node runs on
    header[name] = { dtype: 'F32', shape: t.shape, data_offsets: [offset, offset + bytes.length] };
    blobs.push(bytes);
    offset += bytes.length;
  }
  let json = JSON.stringify(header);
  json += ' '.repeat((8 - (Buffer.byteLength(json) % 8)) % 8);
  const length = Buffer.alloc(8);
  length.writeBigUInt64LE(BigInt(Buffer.byteLength(json)));
  await writeFileAtomic(file, Buffer.concat([length, Buffer.from(json, 'utf8'), ...blobs]));
}

function toFloat32(bytes: Uint8Array, dtype: SafetensorsDtype): Float32Array {
  const copy = new Uint8Array(bytes); // aligned, owned
  if (dtype === 'F32') return new Float32Array(copy.buffer);
  const halves = new Uint16Array(copy.buffer);
  const out = new Float32Array(halves.length);
  if (dtype === 'BF16') {
    const bits = new Uint32Array(out.buffer);
    for (let i = 0; i < halves.length; i++) bits[i] = halves[i] << 16; // bfloat16 is float32's top half
  } else {
    for (let i = 0; i < halves.length; i++) out[i] = halfToFloat(halves[i]);
  }
  return out;
}

/** IEEE 754 binary16 → number (subnormals, infinities and NaN included). */
export function halfToFloat(h: number): number {
  const sign = h & 0x8000 ? -1 : 1;
  const exponent = (h >> 10) & 0x1f;
  const fraction = h & 0x3ff;
  if (exponent === 0) return sign * fraction * 2 ** -24;
  if (exponent === 0x1f) return fraction ? NaN : sign * Infinity;
  return sign * (1 + fraction / 1024) * 2 ** (exponent - 15);
}
