/**
 * Experiment configs (`experiments/<name>.json`): the task and its data, the LM size, training and
 * evaluation settings, seeds, and the arms (method + config). Validated up front: an unknown key,
 * a wrong type, an unknown task or method is one error naming the key and the valid choices.
 * `--set key=value` overrides apply before validation (`--set train.batchSize=8`,
 * `--set arms.cot.config.steps=100` addresses an arm by name).
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { applySetOverrides, DEFAULT_OPTIM_CONFIG, LATENT_CONTROLS, parseConfig, type LmConfig, type OptimConfig } from '@telepath/core';
import { checkTaskName, parseData, type LabTaskName } from './data.js';
import { methodById } from './methods.js';

export interface Arm {
  name: string;
  method: string;
  config: Record<string, unknown>;
  /** Name of an earlier arm whose trained LM (same seed) initialises this arm's LM, e.g. CoT for Coconut. '' = from scratch. */
  initFrom: string;
}

export interface TrainSettings { batchSize: number; logEvery: number; checkpointEvery: number; optim: OptimConfig }
export interface EvalSettings {
  batchSize: number;
  maxExamples: number;
  maxNewTokens: number;
  temperature: number;
  topP: number;
  /** Controls evaluated beside every latent arm (zero, shuffle, random: core's applyLatentControl). */
  controls: string[];
}
export type LmSettings = Omit<LmConfig, 'vocabSize' | 'contextLength'> & { contextLength: number };

export interface ExperimentConfig {
  name: string;
  description: string;
  task: LabTaskName;
  data: object;
  seeds: number[];
  lm: LmSettings;
  train: TrainSettings;
  eval: EvalSettings;
  arms: Arm[];
  why: Record<string, string>;
}

const DEFAULTS = {
  name: '',
  description: '',
  task: '',
  data: null as unknown,
  seeds: [0],
  lm: { contextLength: 0, layers: 4, heads: 4, width: 128, mlpRatio: 4, dropout: 0, layerNormEps: 1e-5, initStd: 0.02 } satisfies LmSettings,
  train: { batchSize: 32, logEvery: 25, checkpointEvery: 100, optim: { ...DEFAULT_OPTIM_CONFIG, warmupSteps: 50 } } satisfies TrainSettings,
  eval: { batchSize: 64, maxExamples: 0, maxNewTokens: 0, temperature: 0, topP: 1, controls: ['zero', 'shuffle', 'random'] } satisfies EvalSettings,
  arms: [] as unknown[],
  why: null as unknown,
};

/** Validates a parsed JSON experiment; `where` names the file in errors. */
export function validateExperiment(raw: unknown, where: string): ExperimentConfig {
  const c = parseConfig(DEFAULTS, raw, where);
  if (!c.name || !/^[a-z0-9][a-z0-9._-]*$/i.test(c.name)) throw new Error(`${where}: "name" must be a non-empty slug (letters, digits, . _ -), got ${JSON.stringify(c.name)}`);
  const task = checkTaskName(c.task, `${where}: "task"`);
  const data = parseData(task, c.data ?? {}, where);
  if (c.seeds.length === 0 || !c.seeds.every((s) => Number.isInteger(s))) throw new Error(`${where}: "seeds" must be a non-empty list of integers`);
  if (!Array.isArray(c.arms) || c.arms.length === 0) throw new Error(`${where}: "arms" must list at least one arm`);
  const names = new Set<string>();
  const arms = c.arms.map((a, i) => {
    const at = `${where}: arms[${i}]`;
    const arm = parseConfig({ name: '', method: '', config: null as unknown, initFrom: '' }, a, at);
    if (!arm.name || !/^[a-z0-9][a-z0-9._-]*$/i.test(arm.name)) throw new Error(`${at}: "name" must be a non-empty slug, got ${JSON.stringify(arm.name)}`);
    if (names.has(arm.name)) throw new Error(`${at}: duplicate arm name "${arm.name}"`);
    if (arm.initFrom && !names.has(arm.initFrom)) throw new Error(`${at} (${arm.name}) "initFrom": "${arm.initFrom}" must name an earlier arm. Earlier arms: ${[...names].join(', ') || '(none)'}`);
    names.add(arm.name);
    const method = methodById(arm.method, `${at} (${arm.name}) "method"`);
    const config = parseConfig(method.defaults, arm.config ?? {}, `${at} (${arm.name}) config`) as Record<string, unknown>;
    return { name: arm.name, method: arm.method, config, initFrom: arm.initFrom };
  });
  for (const ctl of c.eval.controls) {
    if (ctl === 'none' || !LATENT_CONTROLS.includes(ctl as never)) throw new Error(`${where}: eval.controls: unknown control "${ctl}". Expected any of: ${LATENT_CONTROLS.filter((x) => x !== 'none').join(', ')}`);
  }
  const why = (c.why ?? {}) as Record<string, unknown>;
  for (const [k, v] of Object.entries(why)) if (typeof v !== 'string') throw new Error(`${where}: why["${k}"] must be a string`);
  for (const [k, v] of Object.entries({ layers: c.lm.layers, heads: c.lm.heads, width: c.lm.width, batchSize: c.train.batchSize, evalBatch: c.eval.batchSize })) {
    if (!Number.isInteger(v) || v <= 0) throw new Error(`${where}: ${k} must be a positive integer, got ${v}`);
  }
  return { ...c, task, data, arms, why: why as Record<string, string>, lm: c.lm, train: c.train, eval: c.eval } as ExperimentConfig;
}

/** Reads, applies `--set` overrides, validates. */
export async function loadExperiment(file: string, sets: string[] = []): Promise<ExperimentConfig> {
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch (e) {
    throw new Error(`cannot read experiment ${file}: ${(e as Error).message}`);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    throw new Error(`${file}: not valid JSON (${(e as Error).message})`);
  }
  return validateExperiment(applyArmSets(raw as Record<string, unknown>, sets), path.basename(file));
}

/** `arms.<name>.x=v` addresses the arm called <name>; everything else is a plain key path. */
function applyArmSets(raw: Record<string, unknown>, sets: string[]): Record<string, unknown> {
  const plain = sets.filter((s) => !s.startsWith('arms.'));
  const out = applySetOverrides(raw, plain);
  for (const s of sets.filter((x) => x.startsWith('arms.'))) {
    const [, name, ...rest] = s.split('=')[0].split('.');
    const arms = (out.arms ?? []) as Record<string, unknown>[];
    const arm = arms.find((a) => a.name === name);
    if (!arm) throw new Error(`--set ${s}: no arm named "${name}". Arms: ${arms.map((a) => a.name).join(', ')}`);
    Object.assign(arm, applySetOverrides(arm, [`${rest.join('.')}=${s.slice(s.indexOf('=') + 1)}`]));
  }
  return out;
}
