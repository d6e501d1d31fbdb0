/**
 * Experiment configs (`experiments/<name>.json`): the task and its data, the LM size, training and
 * evaluation settings, seeds, and the arms (method + config). Validated up front: an unknown key,
 * a wrong type, an unknown task or method is one error naming the key and the valid choices.
 * `--set key=value` overrides apply before validation (load-experiment.ts reads a file and applies
 * them). An arm may `reuse` an arm of another
 * experiment with the same settings (a shared No-CoT / CoT reference, or a comparison assembled from
 * the method experiments) instead of training its own copy.
 */
import {
  checkNumber,
  checkOptimConfig,
  DEFAULT_LM_SHAPE,
  DEFAULT_OPTIM_CONFIG,
  LATENT_CONTROLS,
  parseConfig,
  type LmConfig,
  type OptimConfig,
} from '@telepath/core';
import { armDataOverrides, armLm, armTrainOverrides, effectiveTrain, type ArmTrain } from './arm-settings.js';
import { checkTaskName, parseData, type LabTaskName } from './data.js';
import { HEURISTIC, heuristicConfig } from '../running/heuristic-arm.js';
import { methodById } from './methods.js';

export interface Arm {
  name: string;
  method: string;
  config: Record<string, unknown>;
  /** Name of an earlier arm whose trained LM (same seed) initialises this arm's LM, e.g. CoT for Coconut. '' = from scratch. */
  initFrom: string;
  /**
   * `"reuse": "<experiment>/<arm>"`: this arm is that arm of another experiment with the same task,
   * data, LM, training and evaluation settings — trained (if it has not been) and recorded in that
   * experiment's run directory, shown in this one's table. Method, config and initFrom come from
   * the source. null for an arm of this experiment's own.
   */
  reuse: { experiment: ExperimentConfig; arm: string } | null;
  /** This arm's own LM settings over the experiment's `lm` (e.g. a parameter-matched control with twice the layers); absent = the experiment's. */
  lm?: Partial<LmSettings>;
  /** This arm's own data settings over the experiment's `data` (e.g. another written reasoning of the same questions); absent = the experiment's. */
  data?: Record<string, unknown>;
  /** This arm's own training settings over the experiment's `train` (e.g. another experiment's recipe as a curriculum stage); absent = the experiment's. */
  train?: ArmTrain;
}

export interface TrainSettings {
  batchSize: number;
  logEvery: number;
  checkpointEvery: number;
  optim: OptimConfig;
}
export interface EvalSettings {
  batchSize: number;
  maxExamples: number;
  maxNewTokens: number;
  temperature: number;
  topP: number;
  /** Controls evaluated beside every latent arm (zero, shuffle, random: core's applyLatentControl). */
  controls: string[];
  /** Training curves: validation accuracy on `curveExamples` fixed validation questions at the first log at or after every `curveEvery` steps of each phase (0 = none). */
  curveEvery: number;
  curveExamples: number;
}
/**
 * `pretrained`: a Hugging Face GPT-2 folder (config.json, model.safetensors, tokenizer files); the
 * LM's architecture, sizes, weights and tokenizer then come from it (`pretrained-lm.ts`), and of
 * the settings here only `dropout` applies. Absent (or "") = a model trained from scratch.
 */
export type LmSettings = Omit<LmConfig, 'vocabSize' | 'contextLength'> & { contextLength: number; pretrained?: string };

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
  /** Baseline arms: every table shows each arm's accuracy difference from each of them, with a paired bootstrap interval. */
  compareTo: string[];
  why: Record<string, string>;
}

const DEFAULTS = {
  name: '',
  description: '',
  task: '',
  data: null as unknown,
  seeds: [0],
  lm: { contextLength: 0, ...DEFAULT_LM_SHAPE, pretrained: '' } satisfies LmSettings,
  train: {
    batchSize: 32,
    logEvery: 25,
    checkpointEvery: 100,
    optim: { ...DEFAULT_OPTIM_CONFIG, warmupSteps: 50 },
  } satisfies TrainSettings,
  eval: {
    batchSize: 64,
    maxExamples: 0,
    maxNewTokens: 0,
    temperature: 0,
    topP: 1,
    controls: ['zero', 'shuffle', 'random'],
    curveEvery: 250,
    curveExamples: 64,
  } satisfies EvalSettings,
  arms: [] as unknown[],
  compareTo: [] as string[],
  /** Named sets of `--set` overrides, chosen with `--set profile=<name>` (e.g. "large", sized for a GPU). */
  profiles: null as unknown,
  /** `{ "key", "values" }`: one experiment per value (sweep.ts); only `telepath run` expands it. */
  sweep: null as unknown,
  why: null as unknown,
};

/**
 * Every numeric setting in its range (integers where counts are meant), naming the key and the
 * range. checkpointEvery must be positive here: an arm killed without checkpoints loses every step.
 */
function checkNumbers(c: { lm: LmSettings; train: TrainSettings; eval: EvalSettings }, where: string): void {
  const at = (key: string) => `${where}: ${key}`;
  checkNumber(at('lm.contextLength (0: sized to the data)'), c.lm.contextLength, { integer: true, min: 0 });
  checkNumber(at('lm.mlpRatio'), c.lm.mlpRatio, { min: 0, minExclusive: true });
  checkNumber(at('lm.dropout'), c.lm.dropout, { min: 0, max: 1, maxExclusive: true });
  checkNumber(at('lm.layerNormEps'), c.lm.layerNormEps, { min: 0, minExclusive: true });
  checkNumber(at('lm.initStd'), c.lm.initStd, { min: 0, minExclusive: true });
  checkNumber(at('train.logEvery'), c.train.logEvery, { integer: true, min: 1 });
  checkNumber(at('train.checkpointEvery'), c.train.checkpointEvery, { integer: true, min: 1 });
  checkOptimConfig(c.train.optim, at('train.optim'));
  checkNumber(at('eval.maxExamples (0: all)'), c.eval.maxExamples, { integer: true, min: 0 });
  checkNumber(at("eval.maxNewTokens (0: the arm's own)"), c.eval.maxNewTokens, { integer: true, min: 0 });
  checkNumber(at('eval.temperature (0: greedy)'), c.eval.temperature, { min: 0 });
  checkNumber(at('eval.topP'), c.eval.topP, { min: 0, max: 1, minExclusive: true });
}

/**
 * An arm's phases: whole step counts, optimiser settings in range, and some training unless the
 * arm starts from another arm's weights (zero steps then evaluates those). An arm that would train
 * nothing from a random init is an error, not a "done".
 */
function checkArmTraining(
  phases: { phase: string; steps: number; optim?: Partial<OptimConfig> }[],
  optim: OptimConfig,
  initFrom: string,
  at: string,
): void {
  for (const p of phases) {
    checkNumber(`${at} phase ${p.phase}: steps`, p.steps, { integer: true, min: 0 });
    checkOptimConfig({ ...optim, ...p.optim }, `${at} phase ${p.phase}: optim`);
  }
  if (!initFrom && phases.every((p) => p.steps === 0))
    throw new Error(
      `${at}: trains 0 steps from a random init (phases ${phases.map((p) => p.phase).join(', ')}); give it steps, or "initFrom" an earlier arm to evaluate that arm's weights`,
    );
}

/** Settings a reused arm's source experiment must share with the experiment reusing it (eval.controls, eval.batchSize and the curve settings may differ). */
function likeForLike(e: ExperimentConfig): object {
  const { controls: _c, batchSize: _b, curveEvery: _e, curveExamples: _x, ...evaluation } = e.eval;
  return { task: e.task, data: e.data, lm: e.lm, train: e.train, eval: evaluation };
}

const SLUG = /^[a-z0-9][a-z0-9._-]*$/i;

/**
 * Validates a parsed JSON experiment; `where` names the file in errors. `sources` holds the raw
 * configs of the experiments its `reuse` arms name (loadExperiment reads them from the same folder).
 */
export function validateExperiment(
  raw: unknown,
  where: string,
  sources: Record<string, unknown> = {},
  seen: string[] = [],
): ExperimentConfig {
  const c = parseConfig(DEFAULTS, raw, where);
  if (!c.name || !SLUG.test(c.name))
    throw new Error(
      `${where}: "name" must be a non-empty slug (letters, digits, . _ -), got ${JSON.stringify(c.name)}`,
    );
  if (c.sweep !== null)
    throw new Error(
      `${where}: a sweep (one experiment per value of ${JSON.stringify((c.sweep as { key?: unknown }).key)}); telepath run expands it, loadSweep reads it`,
    );
  const task = checkTaskName(c.task, `${where}: "task"`);
  const data = parseData(task, c.data ?? {}, where);
  if (c.seeds.length === 0 || !c.seeds.every((s) => Number.isInteger(s)))
    throw new Error(`${where}: "seeds" must be a non-empty list of integers`);
  if (!Array.isArray(c.arms) || c.arms.length === 0) throw new Error(`${where}: "arms" must list at least one arm`);
  checkNumbers(c, where);
  const names = new Set<string>();
  const arms = c.arms.map((a, i) => {
    const at = `${where}: arms[${i}]`;
    const arm = parseConfig(
      {
        name: '',
        method: '',
        config: null as unknown,
        initFrom: '',
        reuse: '',
        lm: null as unknown,
        data: null as unknown,
        train: null as unknown,
      },
      a,
      at,
    );
    if (!arm.name || !SLUG.test(arm.name))
      throw new Error(`${at}: "name" must be a non-empty slug, got ${JSON.stringify(arm.name)}`);
    if (names.has(arm.name)) throw new Error(`${at}: duplicate arm name "${arm.name}"`);
    if (arm.initFrom && !names.has(arm.initFrom))
      throw new Error(
        `${at} (${arm.name}) "initFrom": "${arm.initFrom}" must name an earlier arm. Earlier arms: ${[...names].join(', ') || '(none)'}`,
      );
    names.add(arm.name);
    if (arm.reuse) {
      const own = (['lm', 'data', 'train'] as const).find((k) => arm[k] !== null);
      if (own)
        throw new Error(
          `${at} (${arm.name}): a reused arm takes its lm, data and train settings from ${arm.reuse}; remove "${own}" here`,
        );
      return reusedArm(arm.name, arm, `${at} (${arm.name})`);
    }
    if (arm.method === HEURISTIC) {
      if (arm.initFrom || arm.lm !== null || arm.train !== null)
        throw new Error(`${at} (${arm.name}): a heuristic arm trains nothing; remove "initFrom", "lm" and "train"`);
      // Its data settings choose the test questions it answers (e.g. the other arms' testCount).
      const heuristicData =
        arm.data === null ? undefined : armDataOverrides(task, data, arm.data, `${at} (${arm.name})`);
      return {
        name: arm.name,
        method: arm.method,
        config: heuristicConfig(task, arm.config, `${at} (${arm.name}) config`),
        initFrom: '',
        reuse: null,
        ...(heuristicData ? { data: heuristicData } : {}),
      };
    }
    const method = methodById(arm.method, `${at} (${arm.name}) "method"`);
    const config = parseConfig(method.defaults, arm.config ?? {}, `${at} (${arm.name}) config`) as Record<
      string,
      unknown
    >;
    const trainAt = `${at} (${arm.name}) train`;
    const train =
      arm.train === null
        ? undefined
        : armTrainOverrides(c.train, arm.train, trainAt, (t) =>
            checkNumbers({ lm: DEFAULTS.lm, train: t, eval: DEFAULTS.eval }, trainAt),
          );
    const optim = train ? effectiveTrain(c.train, train).optim : c.train.optim;
    checkArmTraining(method.phases(config), optim, arm.initFrom, `${at} (${arm.name})`);
    const lm = arm.lm === null ? undefined : armLm(arm.lm, DEFAULTS.lm, `${at} (${arm.name}) lm`);
    const armData = arm.data === null ? undefined : armDataOverrides(task, data, arm.data, `${at} (${arm.name})`);
    return {
      name: arm.name,
      method: arm.method,
      config,
      initFrom: arm.initFrom,
      reuse: null,
      ...(lm ? { lm } : {}),
      ...(armData ? { data: armData } : {}),
      ...(train ? { train } : {}),
    };
  });
  for (const base of c.compareTo)
    if (!names.has(base))
      throw new Error(`${where}: compareTo: "${base}" is not an arm. Arms: ${[...names].join(', ')}`);
  for (const arm of arms)
    if (arm.initFrom && arms.find((a) => a.name === arm.initFrom)?.method === HEURISTIC)
      throw new Error(
        `${where}: arm "${arm.name}" starts from "${arm.initFrom}", a heuristic arm, which has no weights`,
      );
  for (const ctl of c.eval.controls) {
    if (ctl === 'none' || !LATENT_CONTROLS.includes(ctl as never))
      throw new Error(
        `${where}: eval.controls: unknown control "${ctl}". Expected any of: ${LATENT_CONTROLS.filter((x) => x !== 'none').join(', ')}`,
      );
  }
  for (const [name, sets] of Object.entries((c.profiles ?? {}) as Record<string, unknown>)) {
    if (!SLUG.test(name) || !isOverrideList(sets))
      throw new Error(
        `${where}: profiles.${name}: expected a slug naming a list of "key=value" overrides (the --set syntax)`,
      );
  }
  const why = (c.why ?? {}) as Record<string, unknown>;
  for (const [k, v] of Object.entries(why))
    if (typeof v !== 'string') throw new Error(`${where}: why["${k}"] must be a string`);
  for (const [k, v] of Object.entries({
    'eval.curveEvery': c.eval.curveEvery,
    'eval.curveExamples': c.eval.curveExamples,
  })) {
    if (!Number.isInteger(v) || v < 0)
      throw new Error(`${where}: ${k} must be an integer ≥ 0 (0 = no training curve), got ${v}`);
  }
  for (const [k, v] of Object.entries({
    layers: c.lm.layers,
    heads: c.lm.heads,
    width: c.lm.width,
    batchSize: c.train.batchSize,
    evalBatch: c.eval.batchSize,
  })) {
    if (!Number.isInteger(v) || v <= 0) throw new Error(`${where}: ${k} must be a positive integer, got ${v}`);
  }
  // Only a set `pretrained` enters the config (records of from-scratch runs keep their keys).
  const { pretrained, ...scratch } = c.lm;
  const lm: LmSettings = pretrained ? { ...scratch, pretrained } : scratch;
  const exp = {
    ...c,
    task,
    data,
    arms,
    why: why as Record<string, string>,
    lm,
    train: c.train,
    eval: c.eval,
  } as ExperimentConfig;
  for (const arm of arms) {
    if (!arm.reuse) continue;
    const [a, b] = [JSON.stringify(likeForLike(arm.reuse.experiment)), JSON.stringify(likeForLike(exp))];
    if (a !== b)
      throw new Error(
        `${where}: arm "${arm.name}" reuses ${arm.reuse.experiment.name}/${arm.reuse.arm}, whose task, data, lm, train or eval settings differ from this experiment's — reused results must be like for like.\n  ${arm.reuse.experiment.name}: ${a}\n  ${c.name}: ${b}`,
      );
  }
  return exp;

  function reusedArm(
    name: string,
    arm: { method: string; config: unknown; initFrom: string; reuse: string },
    at: string,
  ): Arm {
    const m = /^([^/]+)\/([^/]+)$/.exec(arm.reuse);
    if (!m || !SLUG.test(m[1]) || !SLUG.test(m[2]))
      throw new Error(`${at} "reuse": expected "<experiment>/<arm>", got ${JSON.stringify(arm.reuse)}`);
    if (arm.method || arm.config !== null || arm.initFrom)
      throw new Error(`${at}: a reused arm takes its method, config and initFrom from ${arm.reuse}; remove them here`);
    const [, expName, armName] = m;
    if (seen.includes(expName)) throw new Error(`${at} "reuse": ${[...seen, c.name, expName].join(' → ')} is a cycle`);
    if (!(expName in sources))
      throw new Error(`${at} "reuse": experiment "${expName}" not found (expected ${expName}.json beside ${where})`);
    const source = validateExperiment(sources[expName], `${expName}.json`, sources, [...seen, c.name]);
    const src = source.arms.find((x) => x.name === armName);
    if (!src)
      throw new Error(
        `${at} "reuse": ${expName} has no arm "${armName}". Its arms: ${source.arms.map((x) => x.name).join(', ')}`,
      );
    if (src.reuse) return { ...src, name }; // reuse of a reuse: point at the original
    return {
      name,
      method: src.method,
      config: src.config,
      initFrom: src.initFrom,
      reuse: { experiment: source, arm: armName },
      ...(src.data ? { data: src.data } : {}),
    };
  }
}

/** A profile's or a `--set` list: "key=value" strings. */
export function isOverrideList(sets: unknown): sets is string[] {
  return Array.isArray(sets) && sets.every((x) => typeof x === 'string' && x.includes('='));
}
