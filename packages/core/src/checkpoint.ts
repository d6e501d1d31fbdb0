/**
 * Checkpoints: parameters, model config, optimiser moments and step, Rng state, the training
 * step and any method-specific metadata, in one tensor file written atomically. Loading checks
 * that the stored model config and every parameter shape match the model being restored, and
 * names what differs.
 */
import * as tf from '@tensorflow/tfjs-core';
import type { AdamW } from './optim.js';
import type { RngState } from './rng.js';
import { readTensorFile, writeTensorFile, type StoredTensor } from './tensor-file.js';
import { lmConfig } from './tiny-lm.js';

export const CHECKPOINT_FORMAT = 'telepath-checkpoint';
export const CHECKPOINT_VERSION = 1;

export interface CheckpointMeta {
  format: typeof CHECKPOINT_FORMAT;
  version: number;
  step: number;
  modelConfig: unknown;
  rng: RngState | null;
  optimizerStep: number;
  extra: unknown;
}

export interface SaveCheckpointOptions {
  path: string;
  params: Map<string, tf.Variable>;
  modelConfig: unknown;
  step: number;
  optimizer?: AdamW;
  rng?: RngState;
  extra?: unknown;
}

export async function saveCheckpoint(o: SaveCheckpointOptions): Promise<void> {
  const tensors = new Map<string, StoredTensor>();
  const put = async (prefix: string, m: Map<string, tf.Variable>) => {
    // Asynchronous reads: a synchronous one fails on webgpu (read.ts).
    for (const [name, v] of m)
      tensors.set(`${prefix}/${name}`, { dtype: 'float32', shape: v.shape, values: (await v.data()) as Float32Array });
  };
  await put('param', o.params);
  if (o.optimizer) {
    await put('adam.m', o.optimizer.m);
    await put('adam.v', o.optimizer.v);
  }
  const meta: CheckpointMeta = {
    format: CHECKPOINT_FORMAT,
    version: CHECKPOINT_VERSION,
    step: o.step,
    modelConfig: o.modelConfig,
    rng: o.rng ?? null,
    optimizerStep: o.optimizer?.t ?? 0,
    extra: o.extra ?? null,
  };
  await writeTensorFile(o.path, tensors, meta);
}

export interface LoadedCheckpoint {
  meta: CheckpointMeta;
  tensors: Map<string, StoredTensor>;
}

export async function readCheckpoint(path: string): Promise<LoadedCheckpoint> {
  const { meta, tensors } = await readTensorFile(path);
  const m = meta as Partial<CheckpointMeta>;
  if (!m || m.format !== CHECKPOINT_FORMAT)
    throw new Error(`${path}: not a Telepath checkpoint (format ${JSON.stringify(m?.format)})`);
  if (m.version !== CHECKPOINT_VERSION)
    throw new Error(`${path}: checkpoint version ${m.version}, this build reads ${CHECKPOINT_VERSION}`);
  if (!Number.isInteger(m.step) || m.step! < 0)
    throw new Error(`${path}: checkpoint step ${JSON.stringify(m.step)} is not an integer ≥ 0`);
  return { meta: m as CheckpointMeta, tensors };
}

/**
 * Copy a checkpoint's parameters (and optimiser state, when given) into live variables.
 * Throws, naming the difference, if the model config or any shape does not match.
 */
export function restoreCheckpoint(
  path: string,
  ck: LoadedCheckpoint,
  o: { params: Map<string, tf.Variable>; modelConfig: unknown; optimizer?: AdamW },
): void {
  const diff = configDiff(upgradeModelConfig(ck.meta.modelConfig), o.modelConfig);
  if (diff.length > 0) throw new Error(`${path}: model config differs from the checkpoint's: ${diff.join('; ')}`);
  const assign = (prefix: string, m: Map<string, tf.Variable>) => {
    for (const [name, v] of m) {
      const t = ck.tensors.get(`${prefix}/${name}`);
      if (!t) throw new Error(`${path}: checkpoint has no tensor ${prefix}/${name}`);
      if (t.shape.join(',') !== v.shape.join(','))
        throw new Error(
          `${path}: ${prefix}/${name} has shape [${t.shape}] in the checkpoint, [${v.shape}] in the model`,
        );
      v.assign(tf.tensor(t.values, t.shape, t.dtype));
    }
  };
  tf.tidy(() => {
    assign('param', o.params);
    if (o.optimizer) {
      assign('adam.m', o.optimizer.m);
      assign('adam.v', o.optimizer.v);
      o.optimizer.t = ck.meta.optimizerStep;
    }
  });
  const known = new Set([...o.params.keys()].map((k) => `param/${k}`));
  const unused = [...ck.tensors.keys()].filter((k) => k.startsWith('param/') && !known.has(k));
  if (unused.length > 0)
    throw new Error(
      `${path}: checkpoint has parameters the model lacks: ${unused.slice(0, 5).join(', ')}${unused.length > 5 ? ', …' : ''}`,
    );
}

/**
 * A stored LM config is read through `lmConfig`, as the lab reads model.json: one saved before a
 * setting existed (e.g. `positions`) gets that setting's default, the value those models used.
 */
function upgradeModelConfig(c: unknown): unknown {
  const isLmConfig = typeof c === 'object' && c !== null && 'vocabSize' in c && 'contextLength' in c && 'layers' in c;
  return isLmConfig ? lmConfig(c) : c;
}

function configDiff(a: unknown, b: unknown, prefix = ''): string[] {
  if (typeof a === 'object' && a !== null && typeof b === 'object' && b !== null) {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    return [...keys].flatMap((k) =>
      configDiff((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], prefix ? `${prefix}.${k}` : k),
    );
  }
  return JSON.stringify(a) === JSON.stringify(b)
    ? []
    : [`${prefix || 'config'}: checkpoint ${JSON.stringify(a)}, model ${JSON.stringify(b)}`];
}
