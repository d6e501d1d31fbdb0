/**
 * What an arm is made of before it trains: its tokenizer and LM (from scratch, sized to the data,
 * or pretrained), the weights of the arm it starts from (`initFrom`), the method's state, and the
 * task's reward; and, for a finished arm, the answerer with the weights of final.ckpt.
 */
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import {
  ConfigError,
  currentBackend,
  encodeExample,
  exampleTexts,
  lmConfig,
  readCheckpoint,
  readJsonFile,
  restoreCheckpoint,
  Rng,
  runTokenizer,
  TinyLm,
  Tokenizer,
  writeFileAtomic,
  type Example,
  type LatentMethod,
  type LmConfig,
  type MethodState,
  type RewardFn,
} from '@telepath/core';
import type { Task } from '@telepath/tasks';
import type { Answerer } from '../evaluation/evaluate.js';
import type { TaskData } from '../experiment/data.js';
import type { Arm, ExperimentConfig } from '../experiment/experiment.js';
import { methodById } from '../experiment/methods.js';
import { armRunDir } from '../experiment/plan.js';
import { HEURISTIC, heuristicAnswerer } from './heuristic-arm.js';
import { pretrainedLm } from './pretrained-lm.js';
import type { RunArmOptions } from './run-arm.js';

/** All the variables a trained arm ends with (see runArm). */
export const FINAL_CHECKPOINT = 'final.ckpt';

/** Extra positions beyond the longest encoded example (latent slots, markers, generation slack). */
const CONTEXT_MARGIN = 32;
/** Tokens core's encodeExample adds around an example's text (BOS, the question's line break, ###, the answer's space, EOS). */
const FRAMING_TOKENS = 5;

export function maxNewTokensOf(exp: Pick<ExperimentConfig, 'eval'>, arm: Pick<Arm, 'config'>): number {
  return exp.eval.maxNewTokens || ((arm.config.maxNewTokens as number | undefined) ?? 64);
}

/** The answers of a finished arm: its rule, or its method with the weights of final.ckpt. */
export async function finalAnswerer(o: RunArmOptions, dir: string): Promise<{ answer: Answerer; dispose(): void }> {
  if (o.arm.method === HEURISTIC)
    return { answer: heuristicAnswerer(o.data.task.name, o.arm.config.rule as string), dispose: () => {} };
  const method = methodById(o.arm.method, `arm ${o.arm.name}`);
  const { state, lm } = await buildArm(
    method,
    dir,
    o.exp,
    { ...o.arm, initFrom: '' },
    o.seed,
    o.data,
    [...o.data.train, ...o.data.test],
    o.runsDir,
  );
  const final = path.join(dir, FINAL_CHECKPOINT);
  restoreCheckpoint(final, await readCheckpoint(final), { params: state.variables(), modelConfig: lm.config });
  return { answer: (batch, g) => method.generate(state, batch, g), dispose: () => state.dispose() };
}

/**
 * The reward RL phases get: 1 when the task scores the answer correct, else 0 — the same scoring
 * as evaluation (`isCorrect` on "### answer"). A scorer that throws on a malformed sample (e.g.
 * Countdown's expression tokenizer on a lone ".") scores it 0 instead of ending the run.
 */
export function rewardFromTask(task: Task): RewardFn {
  return (ex, answer) => {
    try {
      return task.isCorrect(ex, `### ${answer}`) ? 1 : 0;
    } catch {
      return 0;
    }
  };
}

/** Tokenizer and LM config (both saved in the run dir on first use), the LM, and the method's state (with the task's reward when training). */
export async function buildArm(
  method: LatentMethod<unknown, MethodState>,
  dir: string,
  exp: ExperimentConfig,
  arm: Arm,
  seed: number,
  data: Pick<TaskData, 'train' | 'vocabulary' | 'vocabularyFrom' | 'streamedChars'>,
  all: Example[],
  runsDir: string,
  reward?: RewardFn,
) {
  const rng = new Rng(seed);
  const sourceDir = arm.initFrom ? armRunDir(runsDir, exp, arm.initFrom, seed) : null;
  const { tokenizer, lm, hf } = exp.lm.pretrained
    ? await pretrainedLm(exp.lm.pretrained, dir, exp, arm, all)
    : { ...(await scratchLm(dir, exp, arm, data, all, rng, sourceDir)), hf: undefined };
  const source = sourceDir ? await readSource(sourceDir, dir) : null;
  if (source) restoreFrom(source, lm.params, lm.config);
  const state = method.init(
    {
      lm,
      tokenizer,
      rng: rng.fork('method'),
      backend: currentBackend()?.backend ?? 'unknown',
      ...(reward ? { reward } : {}),
    },
    arm.config,
  );
  // From an arm of the same method, the method's own variables (CoLaR's latent head, soft tokens,
  // a coprocessor) start from the source too, so e.g. CoLaR's speeds can share one SFT run.
  if (source?.method === arm.method)
    restoreFrom(
      source,
      new Map([...state.variables()].filter(([k]) => !lm.params.has(k) && source.ck.tensors.has(`param/${k}`))),
      lm.config,
    );
  return { tokenizer, lm, state, hf };
}

/**
 * A from-scratch LM sized to the data, with the run's own tokenizer built from the training split.
 * An arm that starts from another's weights (`sourceDir`) keeps that arm's tokenizer, whose ids its
 * embedding rows are, when the two hold the same tokens: the ranking by count changes whenever a
 * written form's text changed since the source ran, and ids that moved would scramble the rows.
 */
async function scratchLm(
  dir: string,
  exp: ExperimentConfig,
  arm: Arm,
  data: Pick<TaskData, 'train' | 'vocabulary' | 'vocabularyFrom' | 'streamedChars'>,
  all: Example[],
  rng: Rng,
  sourceDir: string | null,
): Promise<{ tokenizer: Tokenizer; lm: TinyLm }> {
  const file = path.join(dir, 'tokenizer.json');
  // vocabularyFrom: arms that differ only in how the reasoning is written share one vocabulary.
  const texts = data.vocabularyFrom ?? data.train;
  const sourceFile = sourceDir && path.join(sourceDir, 'tokenizer.json');
  let tokenizer: Tokenizer;
  if (sourceFile && !existsSync(file) && existsSync(sourceFile)) {
    const [own, source] = [Tokenizer.build(exampleTexts(texts), data.vocabulary), await Tokenizer.load(sourceFile)];
    const sourceTokens = new Set(source.tokens);
    const sameTokens = own.size === source.size && own.tokens.every((t) => sourceTokens.has(t));
    tokenizer = sameTokens ? source : own; // own: readSource then names the difference
    await tokenizer.save(file);
  } else tokenizer = await runTokenizer(file, texts, data.vocabulary);
  const modelFile = path.join(dir, 'model.json');
  let lmConfig: LmConfig;
  if (existsSync(modelFile)) lmConfig = await readJsonFile<LmConfig>(modelFile);
  else {
    const longest = Math.max(
      ...all.map((ex) => {
        const e = encodeExample(tokenizer, ex);
        return e.prompt.length + e.reasoning.length + e.answer.length;
      }),
    );
    // A streamed example may be longer than every one of the sample: its bound is in characters.
    const streamed = data.streamedChars === undefined ? 0 : data.streamedChars + FRAMING_TOKENS;
    const lm = { ...exp.lm, ...arm.lm };
    // A set length that some example outgrows would stop the run at the first batch holding it.
    const need = Math.max(longest, streamed);
    if (lm.contextLength && need > lm.contextLength)
      throw new ConfigError(
        `arm ${arm.name}: lm.contextLength ${lm.contextLength} is shorter than the longest example ` +
          (streamed > longest
            ? `the training stream can draw (${streamed} tokens at most)`
            : `(${longest} tokens, of the training sample and the test set)`) +
          `; set it to at least ${need + CONTEXT_MARGIN}, or to 0 to size it to the data`,
      );
    const contextLength = lm.contextLength || Math.max(longest + CONTEXT_MARGIN, streamed);
    lmConfig = { ...lm, vocabSize: tokenizer.size, contextLength };
    await writeFileAtomic(modelFile, JSON.stringify(lmConfig, null, 2) + '\n');
  }
  return { tokenizer, lm: new TinyLm(lmConfig, rng.fork('lm')) };
}

interface InitSource {
  file: string;
  ck: Awaited<ReturnType<typeof readCheckpoint>>;
  method: string;
}

/**
 * An LM config as its weights see it. With rotary positions no parameter depends on the context
 * length (learned positions have a [contextLength, width] table), so an arm may start from weights
 * trained with a shorter or longer context, e.g. a longer written trace from the same model.
 */
function weightsConfig(c: LmConfig): LmConfig {
  return c.positions === 'rotary' ? { ...c, contextLength: 0 } : c;
}

/**
 * The weights a finished earlier arm (same seed) ended with (its final.ckpt): its tokenizer and
 * model config must equal this arm's (the context length may differ with rotary positions).
 */
async function readSource(source: string, dir: string): Promise<InitSource> {
  if (!existsSync(path.join(source, 'summary.json')))
    throw new Error(`initFrom: ${source} has not finished; its arm must run (earlier in the same experiment) first`);
  for (const f of ['tokenizer.json', 'model.json']) {
    // model.json through lmConfig, so one written before a setting existed reads with its default.
    const read = async (d: string) =>
      JSON.stringify(
        f === 'model.json'
          ? weightsConfig(lmConfig(await readJsonFile(path.join(d, f))))
          : await readJsonFile(path.join(d, f)),
      );
    const [a, b] = await Promise.all([read(source), read(dir)]);
    if (a !== b)
      throw new Error(
        `initFrom: ${f} of ${source} differs from this arm's (${dir}); both arms must use the same data and LM settings`,
      );
  }
  const resolved = await readJsonFile<{ arm: Arm }>(path.join(source, 'config.resolved.json'));
  let file = path.join(source, FINAL_CHECKPOINT);
  if (!existsSync(file)) {
    // Runs recorded before final.ckpt existed: their last phase's checkpoint.
    const phases = methodById(resolved.arm.method, `initFrom ${source}`).phases(resolved.arm.config);
    file = path.join(source, `${phases[phases.length - 1].phase}.ckpt`);
    if (!existsSync(file))
      throw new Error(
        `initFrom: ${source} has finished but holds no weights (no ${FINAL_CHECKPOINT} or ${path.basename(file)}: a record kept without --weights can be read back, not started from); train that arm × seed again with --force in a runs folder`,
      );
  }
  return { file, ck: await readCheckpoint(file), method: resolved.arm.method };
}

/** Assigns `params` from the source checkpoint (every one must be there, with its shape). */
function restoreFrom(source: InitSource, params: ReturnType<MethodState['variables']>, modelConfig: LmConfig): void {
  if (params.size === 0) return;
  const tensors = new Map(
    [...source.ck.tensors].filter(([k]) => k.startsWith('param/') && params.has(k.slice('param/'.length))),
  );
  // readSource checked the configs agree but for a rotary model's context length: restore under the source's.
  const saved = source.ck.meta.modelConfig as { contextLength?: unknown };
  const asSaved =
    modelConfig.positions === 'rotary' ? { ...modelConfig, contextLength: saved.contextLength } : modelConfig;
  restoreCheckpoint(source.file, { meta: source.ck.meta, tensors }, { params, modelConfig: asSaved });
}
