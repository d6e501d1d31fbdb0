/**
 * Latent vectors in run records. A method's `trace()` returns a `LatentTrace` (one [N, C] matrix
 * per latent slot); the lab stores it with `writeLatentTrace` as `latents.bin` (a tensor file:
 * JSON header + float32 data) and @telepath/analysis reads it back with `readLatentTrace`.
 * `traceInChunks` is how a method with a fixed number of latent slots builds one.
 * Letters: N examples, b examples of a chunk, K slots, W vector width.
 */
import type { Example, LatentTrace } from './method.js';
import { readTensorFile, writeTensorFile, type StoredTensor } from './tensor-file.js';

const FORMAT = 'telepath-latents';
const VERSION = 1;

export async function writeLatentTrace(
  path: string,
  trace: LatentTrace,
  extraMeta: Record<string, unknown> = {},
): Promise<void> {
  const tensors = new Map<string, StoredTensor>();
  trace.slots.forEach((s, i) => {
    if (s.vectors.length !== s.rows * s.width)
      throw new Error(`writeLatentTrace: slot ${s.name} has ${s.vectors.length} values for [${s.rows}, ${s.width}]`);
    tensors.set(`slot${i}`, { dtype: 'float32', shape: [s.rows, s.width], values: s.vectors });
  });
  await writeTensorFile(path, tensors, {
    format: FORMAT,
    version: VERSION,
    source: trace.source,
    slotNames: trace.slots.map((s) => s.name),
    exampleIds: trace.exampleIds,
    ...extraMeta,
  });
}

export async function readLatentTrace(path: string): Promise<LatentTrace & { meta: Record<string, unknown> }> {
  const { meta, tensors } = await readTensorFile(path);
  const m = meta as { format?: string; version?: number; source: string; slotNames: string[]; exampleIds: string[] };
  if (m.format !== FORMAT) throw new Error(`${path}: not a Telepath latent file (format ${JSON.stringify(m.format)})`);
  if (m.version !== VERSION) throw new Error(`${path}: latent file version ${m.version}, this build reads ${VERSION}`);
  const slots = m.slotNames.map((name, i) => {
    const t = tensors.get(`slot${i}`);
    if (!t) throw new Error(`${path}: missing slot ${i} (${name})`);
    return { name, vectors: t.values as Float32Array, rows: t.shape[0], width: t.shape[1] };
  });
  return { source: m.source, slots, exampleIds: m.exampleIds, meta: meta as Record<string, unknown> };
}

export interface ChunkedTraceOptions {
  source: string;
  /** One name per latent slot (K). */
  slotNames: string[];
  /** Width W of every slot's vectors. */
  width: number;
  /** Examples per `read` call. */
  chunk: number;
}

/**
 * A trace of K slots of width W over `examples`, read `chunk` examples at a time: `read(part)`
 * resolves to the part's vectors [b, K, W] row-major (slot k of row r at (r·K + k)·W), read back
 * asynchronously (`await t.data()`: a synchronous read fails on webgpu); slot k then holds [N, W],
 * one row per example in order.
 */
export async function traceInChunks(
  examples: Example[],
  o: ChunkedTraceOptions,
  read: (part: Example[]) => Promise<Float32Array>,
): Promise<LatentTrace> {
  const K = o.slotNames.length;
  const W = o.width;
  const N = examples.length;
  const slots = o.slotNames.map((name) => ({ name, vectors: new Float32Array(N * W), rows: N, width: W }));
  for (let i = 0; i < N; i += o.chunk) {
    const part = examples.slice(i, i + o.chunk);
    const v = await read(part); // [b, K, W]
    if (v.length !== part.length * K * W)
      throw new Error(`traceInChunks: read ${v.length} values for ${part.length} examples × ${K} slots × ${W}`);
    for (let r = 0; r < part.length; r++)
      for (let k = 0; k < K; k++) slots[k].vectors.set(v.subarray((r * K + k) * W, (r * K + k + 1) * W), (i + r) * W);
  }
  return { source: o.source, slots, exampleIds: examples.map((e) => e.id) };
}
