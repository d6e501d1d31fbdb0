/**
 * One arm × one seed: build the tokenizer and LM, train every phase of the method with
 * checkpoints, evaluate, and write the run record under runs/<experiment>/<arm>/s<seed>/.
 * A finished run (summary.json present) is skipped unless forced; an unfinished one resumes from
 * its checkpoints; Ctrl-C stops after the current step with a checkpoint written. A forced retrain
 * builds its record beside the finished one (`<dir>.retrain`) and swaps it in when complete, so a
 * retrain killed midway loses nothing.
 */
import { existsSync, promises as fs } from 'node:fs';
import * as path from 'node:path';
import {
  configDifferences,
  currentBackend,
  readJsonFile,
  saveCheckpoint,
  Rng,
  RunRecord,
  saveGpt2,
  train,
  writeFileAtomic,
  writeLatentTrace,
  type LatentControl,
  type PretrainedTokenizer,
  type TrainStep,
} from '@telepath/core';
import { curveLogger, evaluateTestSets, writeSamples } from '../evaluation/arm-eval.js';
import { evaluateControls } from '../evaluation/controls.js';
import { evaluationFingerprint, FinishedParts } from '../evaluation/finished-parts.js';
import { DATA_DEFAULTS, extraTestNames, type LabTaskName, type TaskData } from '../experiment/data.js';
import type { Answerer } from '../evaluation/evaluate.js';
import { addPasses } from '../evaluation/eval-passes.js';
import { HEURISTIC, runHeuristicArm } from './heuristic-arm.js';
import { missingFromRecord, nothingMissing, upgradeRecord } from './upgrade-record.js';
import { armData, armTrain } from '../experiment/arm-settings.js';
import type { Arm, ExperimentConfig } from '../experiment/experiment.js';
import { methodById } from '../experiment/methods.js';
import { PRETRAINED_EXPORT } from './pretrained-lm.js';
import { Progress } from './progress.js';
import { runDirOf, startingPoint } from '../experiment/plan.js';
import { acquireRunLock } from './run-lock.js';
import type { ArmSummary } from './arm-summary.js';
import { phaseBatches } from './batches.js';
import { buildArm, finalAnswerer, FINAL_CHECKPOINT, maxNewTokensOf, rewardFromTask } from './build-arm.js';

export { runDirOf };

/**
 * On resume, a setting the run's record lacks (added to the method's config or the task's data
 * since the run started) is accepted at its default, which keeps the behaviour the run started
 * with; at any other value the resume is refused, as for every other change.
 */
function addedAtDefault(exp: ExperimentConfig, methodDefaults: object): (at: string, value: unknown) => boolean {
  const same = (a: unknown, b: unknown) => a !== undefined && JSON.stringify(a) === JSON.stringify(b);
  const dataDefaults = DATA_DEFAULTS[exp.task as LabTaskName] as Record<string, unknown> | undefined;
  return (at, value) => {
    const [head, sub, key, ...rest] = at.split('.');
    if (head === 'arm' && sub === 'config' && key !== undefined && rest.length === 0)
      return same((methodDefaults as Record<string, unknown>)[key], value);
    if (head === 'data' && sub !== undefined && key === undefined) return same(dataDefaults?.[sub], value);
    return false;
  };
}

export interface RunArmOptions {
  exp: ExperimentConfig;
  arm: Arm;
  seed: number;
  data: TaskData;
  runsDir: string;
  force?: boolean;
  shouldStop?: () => boolean;
  quiet?: boolean;
  /** Where notices go (a finished arm recorded with another config); default stderr. */
  warn?: (line: string) => void;
}

/** runArm's arm, with its data loaded only when the arm trains, is evaluated or has its record upgraded (a finished one is read back without it). */
export type ArmRequest = Omit<RunArmOptions, 'data'> & { loadData: () => Promise<TaskData> };

/** Trains and evaluates one arm × seed (or reads its record); with `deferIfBusy`, 'busy' when another live process holds it, instead of waiting. */
export async function runArm(o: ArmRequest & { deferIfBusy: true }): Promise<ArmSummary | 'interrupted' | 'busy'>;
export async function runArm(o: ArmRequest): Promise<ArmSummary | 'interrupted'>;
export async function runArm(o: ArmRequest & { deferIfBusy?: boolean }): Promise<ArmSummary | 'interrupted' | 'busy'> {
  const dir = runDirOf(o.runsDir, o.exp.name, o.arm.name, o.seed);
  const summaryFile = path.join(dir, 'summary.json');
  const retrained = existsSync(path.join(retrainDirOf(dir), 'summary.json')); // to swap in (finishSwap)
  const missing = async () =>
    missingFromRecord(
      extraTestNames(o.exp.task as LabTaskName, armData(o.exp, o.arm)),
      await readJsonFile<ArmSummary>(summaryFile),
      dir,
      o.arm.method === HEURISTIC || existsSync(path.join(dir, FINAL_CHECKPOINT)),
    );
  if (!o.force && !retrained && existsSync(summaryFile) && nothingMissing(await missing())) return readFinished(o, dir);
  const lock = await acquireRunLock(dir, {
    shouldStop: o.shouldStop,
    noWait: o.deferIfBusy ?? false,
    onWait: (h, why) =>
      o.quiet ||
      console.error(
        `[telepath] ${o.arm.name} s${o.seed}: ${dir} is being trained (since ${h.since}) by ${why}; waiting for it`,
      ),
  });
  if (lock === 'busy') return 'busy';
  if (!lock) return 'interrupted';
  try {
    await finishSwap(dir);
    if (!o.force && existsSync(summaryFile)) {
      // Finished (perhaps by the process it waited for); a record that predates the diagnostics or a test set gains them.
      const [finished, gaps] = [await readFinished(o, dir), await missing()];
      if (nothingMissing(gaps)) return finished;
      const loaded = { ...o, data: await o.loadData() };
      return upgradeRecord(finished, dir, gaps, {
        data: loaded.data,
        eval: { ...o.exp.eval, maxNewTokens: maxNewTokensOf(o.exp, o.arm) },
        answerer: () => finalAnswerer(loaded, dir),
        log: o.warn ?? ((l) => console.error(l)),
      });
    }
    return await runLockedArm({ ...o, data: await o.loadData() }, dir);
  } finally {
    await lock.release();
  }
}

/**
 * A finished arm's record. One made with another config than the experiment's now (an edited
 * config file, a --set) is still read — retraining is --force's decision — but the difference is
 * named, so a table never silently mixes settings. Keys the record lacks (settings added since it
 * was written) are not named.
 */
async function readFinished(o: ArmRequest, dir: string): Promise<ArmSummary> {
  const recorded = await readJsonFile(path.join(dir, 'config.resolved.json'));
  const changed = configDifferences(recorded, JSON.parse(JSON.stringify(resolvedConfig(o.exp, o.arm, o.seed))), {
    acceptAdded: () => true,
  });
  if (changed.length > 0)
    (o.warn ?? console.error)(
      `[telepath] ${o.arm.name} s${o.seed}: its record (${dir}) was made with another config than this one (${changed.join('; ')}); showing that record — --force retrains it`,
    );
  return readJsonFile<ArmSummary>(path.join(dir, 'summary.json'));
}

/** Where `--force` retrains the arm of `dir`: beside it, swapped in only when complete. */
export function retrainDirOf(dir: string): string {
  return `${dir}.retrain`;
}

/**
 * Puts a complete retrain in place of the finished record: the old one moves aside, the new one
 * takes its name, the old one goes. A crash between the two renames leaves no record at `dir`
 * (never a wrong one); `finishSwap` completes the swap on the next run, as it does for a retrain
 * that finished but was not swapped in yet.
 */
async function swapIn(dir: string): Promise<void> {
  const replaced = `${dir}.replaced`;
  await fs.rm(replaced, { recursive: true, force: true });
  if (existsSync(dir)) await fs.rename(dir, replaced);
  await fs.rename(retrainDirOf(dir), dir);
  await fs.rm(replaced, { recursive: true, force: true });
}

/** Completes a swap a crash interrupted, before or between its renames (see swapIn); called with the arm's lock held. */
async function finishSwap(dir: string): Promise<void> {
  if (existsSync(path.join(retrainDirOf(dir), 'summary.json'))) await swapIn(dir);
  else if (existsSync(dir)) await fs.rm(`${dir}.replaced`, { recursive: true, force: true });
}

/** What a run directory records as its config: everything that decides the arm's result. */
export function resolvedConfig(exp: ExperimentConfig, arm: Arm, seed: number) {
  const { reuse: _ownArm, ...armRecord } = arm; // an arm that runs here is never a reused one
  return {
    experiment: exp.name,
    task: exp.task,
    data: armData(exp, arm),
    lm: exp.lm,
    train: armTrain(exp, arm),
    eval: exp.eval,
    arm: armRecord,
    seed,
  };
}

async function runLockedArm(o: RunArmOptions, finalDir: string): Promise<ArmSummary | 'interrupted'> {
  const { exp, arm, seed, data } = o;
  const config = resolvedConfig(exp, arm, seed);
  // A forced retrain works beside the finished record; one killed earlier resumes if its config is this one.
  const dir = o.force ? retrainDirOf(finalDir) : finalDir;
  if (
    o.force &&
    existsSync(dir) &&
    configDifferences(
      await readJsonFile(path.join(dir, 'config.resolved.json')).catch(() => null),
      JSON.parse(JSON.stringify(config)),
    ).length > 0
  )
    await fs.rm(dir, { recursive: true, force: true });
  if (data.test.length === 0)
    throw new Error(
      `${exp.name} arm ${arm.name}: the test set is empty (data ${JSON.stringify(exp.data)}); an accuracy of 0/0 would mean nothing`,
    );
  if (arm.method === HEURISTIC) {
    const done = await runHeuristicArm(o, dir, config);
    if (done === 'interrupted' || !o.force) return done;
    await swapIn(finalDir);
    return readJsonFile<ArmSummary>(path.join(finalDir, 'summary.json'));
  }
  if (data.train.length === 0)
    throw new Error(
      `${exp.name} arm ${arm.name}: the training set is empty (data ${JSON.stringify(exp.data)}); nothing to train on`,
    );

  const method = methodById(arm.method, `arm ${arm.name}`);
  const record = await RunRecord.open(dir, config, {
    resume: true,
    datasets: data.hashes,
    acceptAdded: addedAtDefault(exp, method.defaults),
  });
  const built = await buildArm(
    method,
    dir,
    exp,
    arm,
    seed,
    data,
    [...data.train, ...data.test],
    o.runsDir,
    rewardFromTask(data.task),
  );
  const { state, lm } = built;
  try {
    const rng = new Rng(seed);
    const timing = await readTiming(dir);
    const trainSettings = armTrain(exp, arm);
    const maxNewTokens = maxNewTokensOf(exp, arm);
    const answer: Answerer = (batch, g) => method.generate(state, batch, g);
    let phaseStart = 0; // the steps of the phases before this one: where it reads the seed's stream
    for (const { phase, steps, optim } of method.phases(arm.config)) {
      const batches = phaseBatches(data, { seed, phase, phaseStart, batchSize: trainSettings.batchSize });
      phaseStart += steps;
      const bar = o.quiet ? undefined : new Progress(`${arm.name} s${seed} ${phase}`, steps);
      const curve = curveLogger(answer, data, { ...exp.eval, maxNewTokens }, record, phase, steps, seed);
      const res = await train({
        params: state.trainable(phase),
        rng: rng.fork(`train/${phase}`),
        modelConfig: lm.config,
        checkpointPath: path.join(dir, `${phase}.ckpt`),
        config: {
          steps,
          logEvery: trainSettings.logEvery,
          checkpointEvery: trainSettings.checkpointEvery,
          optim: { ...trainSettings.optim, ...optim },
        },
        loss: (at) => method.loss(state, batches.of(at), { step: at.step, phase, rng: at.rng }),
        // The same batch as the loss (an equal, fresh step rng), prepared before the gradient tape.
        ...(method.prepare
          ? {
              prepare: (at: TrainStep) => method.prepare!(state, batches.of(at), { step: at.step, phase, rng: at.rng }),
            }
          : {}),
        onLog: async (l) => {
          // Awaited: a step's line is on disk before shouldStop is polled, so a stop or crash there keeps it.
          await record.log(l.step, {
            [`${phase}/loss`]: l.loss,
            [`${phase}/lr`]: l.lr,
            [`${phase}/grad_norm`]: l.gradNorm,
            [`${phase}/ms`]: l.ms,
            ...batches.logged(l.step),
          });
          bar?.update(l.step, `loss ${l.loss.toFixed(3)}`);
          await curve.onStep(l.step);
        },
        shouldStop: o.shouldStop,
        // Steps past the checkpoint a crashed run resumes from were logged once already; they run again.
        onStart: async (start) => {
          for (const resumable of [bar, curve]) resumable?.resumedAt(start); // rate and curve points from here
          await record.dropMetrics(
            (l) => Object.keys(l).some((k) => k.startsWith(`${phase}/`)) && (l.step as number) > start,
          );
        },
      });
      await record.flush();
      // Every segment of the phase, before a crash too (core keeps the seconds in the checkpoint),
      // less this segment's validation-curve evaluations; max: a record whose checkpoints predate
      // that keeps the time timing.json already holds.
      timing[phase] = Math.max(timing[phase] ?? 0, res.seconds - curve.seconds);
      await writeFileAtomic(path.join(dir, 'timing.json'), JSON.stringify(timing) + '\n');
      if (res.interrupted) return 'interrupted';
    }
    // Every variable the arm ends with, frozen ones included (a phase checkpoint holds only what that
    // phase trained, e.g. CoLaR's SFT leaves out the embeddings): what a later arm's initFrom loads.
    await saveCheckpoint({
      path: path.join(dir, FINAL_CHECKPOINT),
      params: state.variables(),
      modelConfig: lm.config,
      step: 0,
    });
    if (built.hf)
      await saveGpt2(path.join(dir, PRETRAINED_EXPORT), lm, {
        hf: built.hf,
        tokenizer: built.tokenizer as PretrainedTokenizer,
      });
    // Each finished part of the evaluation is kept, so an interrupted one resumes after it.
    const evalSettings = { ...exp.eval, maxNewTokens };
    const parts = new FinishedParts(
      dir,
      await evaluationFingerprint(path.join(dir, FINAL_CHECKPOINT), evalSettings, seed),
    );
    const sets = await evaluateTestSets(answer, data, evalSettings, dir, {
      label: `${arm.name} s${seed}`,
      seed,
      shouldStop: o.shouldStop,
      quiet: o.quiet,
      parts,
    });
    if (sets === 'interrupted') return 'interrupted';
    const { test } = sets;
    // Stochastic decoders (CoLaR) are scored over several passes; the first is the one whose samples are recorded.
    const ev = await addPasses(
      method,
      arm.config,
      state,
      test,
      data.task,
      evalSettings,
      { label: `${arm.name} s${seed} eval`, seed, shouldStop: o.shouldStop, quiet: o.quiet, parts },
      sets.main,
    );
    if (ev === 'interrupted') return 'interrupted';
    if (ev.passes) await writeSamples(dir, ev.samples); // now with each question's share of passes right
    const ran =
      ev.reasoningKind === 'latents'
        ? await evaluateControls(
            method,
            arm.config,
            state,
            test,
            data.task,
            exp.eval.controls as LatentControl[],
            evalSettings,
            dir,
            { label: `${arm.name} s${seed} eval`, seed, shouldStop: o.shouldStop, quiet: o.quiet, parts },
          )
        : { controls: {}, vacuous: {} };
    if (ran === 'interrupted') return 'interrupted';
    const { controls, vacuous } = ran;
    if (method.trace)
      await writeLatentTrace(path.join(dir, 'latents.bin'), await method.trace(state, test.slice(0, 256)), {
        method: arm.method,
        arm: arm.name,
      });
    const summary: ArmSummary = {
      experiment: exp.name,
      arm: arm.name,
      armIndex: exp.arms.findIndex((a) => a.name === arm.name),
      method: arm.method,
      seed,
      accuracy: ev.accuracy,
      stderr: ev.stderr,
      correct: ev.correct,
      total: ev.total,
      reasoningLength: ev.reasoningLength,
      reasoningKind: ev.reasoningKind,
      msPerExample: ev.msPerExample,
      trainSeconds: Object.values(timing).reduce((a, b) => a + b, 0),
      params: [...state.variables().values()].reduce((a, v) => a + v.size, 0),
      backend: currentBackend()?.backend ?? 'unknown',
      ...(ev.validReasoning !== null
        ? { validReasoning: ev.validReasoning, reasoningVerdicts: ev.reasoningVerdicts }
        : {}),
      ...(Object.keys(controls).length ? { controls } : {}),
      ...(Object.keys(vacuous).length ? { vacuousControls: vacuous } : {}),
      diagnostics: ev.diagnostics,
      ...(Object.keys(sets.tests).length ? { tests: sets.tests } : {}),
      startsFrom: startingPoint(exp, arm),
      ...(ev.passes ? { passes: ev.passes } : {}),
      ...(method.trainingStats && Object.keys(method.trainingStats(state)).length
        ? { trainingStats: method.trainingStats(state) }
        : {}),
    };
    await record.dropMetrics((l) => 'test/acc' in l); // a run killed between this line and summary.json
    await record.log(Object.values(timing).length, {
      'test/acc': ev.accuracy,
      'test/reasoning_length': ev.reasoningLength,
      'test/ms_per_example': ev.msPerExample,
    });
    await record.finish(summary);
    await parts.clear();
    if (o.force) await swapIn(finalDir);
    return readJsonFile<ArmSummary>(path.join(finalDir, 'summary.json')); // as recorded, like a skipped arm's
  } finally {
    state.dispose();
  }
}

/** The generation cap of an arm: the experiment's eval.maxNewTokens, else the arm's own, else 64. */
async function readTiming(dir: string): Promise<Record<string, number>> {
  const file = path.join(dir, 'timing.json');
  return existsSync(file) ? readJsonFile<Record<string, number>>(file) : {};
}
