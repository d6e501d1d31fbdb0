/**
 * Latent vectors in run records. A method's `trace()` returns a `LatentTrace` (one [N, C] matrix
 * per latent slot); the lab stores it with `writeLatentTrace` as `latents.bin` (a tensor file:
 * JSON header + float32 data) and @telepath/analysis reads it back with `readLatentTrace`.
 */
import type { LatentTrace } from './method.js';
import { readTensorFile, writeTensorFile, type StoredTensor } from './tensor-file.js';

const FORMAT = 'telepath-latents';
const VERSION = 1;

export async function writeLatentTrace(path: string, trace: LatentTrace, extraMeta: Record<string, unknown> = {}): Promise<void> {
  const tensors = new Map<string, StoredTensor>();
  trace.slots.forEach((s, i) => {
    if (s.vectors.length !== s.rows * s.width) throw new Error(`writeLatentTrace: slot ${s.name} has ${s.vectors.length} values for [${s.rows}, ${s.width}]`);
    tensors.set(`slot${i}`, { dtype: 'float32', shape: [s.rows, s.width], values: s.vectors });
  });
  await writeTensorFile(path, tensors, { format: FORMAT, version: VERSION, source: trace.source, slotNames: trace.slots.map((s) => s.name), exampleIds: trace.exampleIds, ...extraMeta });
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
