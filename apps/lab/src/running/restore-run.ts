/**
 * A finished arm rebuilt from its run record (config.resolved.json, tokenizer, model config,
 * final.ckpt or its phase checkpoints), for `telepath eval` and `telepath token-loss`.
 */
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { readCheckpoint, readJsonFile, restoreCheckpoint, type Example } from '@telepath/core';
import type { Arm, ExperimentConfig } from '../experiment/experiment.js';
import { methodById } from '../experiment/methods.js';
import { buildArm, FINAL_CHECKPOINT } from './build-arm.js';

/** What a run directory's config.resolved.json records. */
export type ResolvedRun = Pick<ExperimentConfig, 'task' | 'data' | 'lm' | 'train' | 'eval'> & {
  experiment: string;
  arm: Arm;
  seed: number;
};

/**
 * The run's record; throws naming the directory if it is not a finished run. `weightsOnly`: a run
 * whose training is done (final.ckpt written) is enough, its evaluation may still be running.
 * `started`: any run (its phase checkpoints are read, restoreFinishedRun's `upToPhase`).
 */
export async function readFinishedRun(
  dir: string,
  o: { weightsOnly?: boolean; started?: boolean } = {},
): Promise<ResolvedRun> {
  const configFile = path.join(dir, 'config.resolved.json');
  if (!existsSync(configFile)) throw new Error(`${dir} is not a run directory (no config.resolved.json)`);
  if (o.started) return (await readJsonFile(configFile)) as ResolvedRun;
  const trained = o.weightsOnly && existsSync(path.join(dir, FINAL_CHECKPOINT));
  if (!trained && !existsSync(path.join(dir, 'summary.json')))
    throw new Error(
      o.weightsOnly
        ? `${dir}: this run has not finished training (no ${FINAL_CHECKPOINT}); finish it with telepath run first`
        : `${dir}: this run has not finished training and evaluation; finish it with telepath run first`,
    );
  return (await readJsonFile(configFile)) as ResolvedRun;
}

/**
 * The arm's method and state with its trained variables restored, its LM and the run's tokenizer
 * (`examples`: what it will be run on, for a vocabulary check). The caller disposes the state.
 * `upToPhase`: the weights of that phase's checkpoint instead of final.ckpt (a run still training,
 * or an earlier phase): the arm is built as training built it (from its initFrom source) and each
 * phase's checkpoint up to that one is restored in order.
 */
export async function restoreFinishedRun(
  dir: string,
  resolved: ResolvedRun,
  examples: Example[],
  o: { upToPhase?: string } = {},
) {
  const configFile = path.join(dir, 'config.resolved.json');
  const method = methodById(resolved.arm.method, `${configFile} arm`);
  const phases = method.phases(resolved.arm.config).map(({ phase }) => phase);
  if (o.upToPhase !== undefined && !phases.includes(o.upToPhase))
    throw new Error(
      `${dir}: arm ${resolved.arm.name} has no phase "${o.upToPhase}" (its phases: ${phases.join(', ')})`,
    );
  const restoredPhases = o.upToPhase === undefined ? phases : phases.slice(0, phases.indexOf(o.upToPhase) + 1);
  // The record keeps the arm, not the experiment's other arms: an initFrom source is looked for
  // among this experiment's runs, beside this run directory.
  const exp = { ...resolved, name: resolved.experiment, arms: [] } as unknown as ExperimentConfig;
  const final = path.join(dir, FINAL_CHECKPOINT);
  // final.ckpt holds every variable the arm ended with, frozen ones and init-time measurements
  // included, so the arm it started from is not needed. Records written before final.ckpt existed:
  // the initFrom source, then each phase's checkpoint.
  const hasFinal = o.upToPhase === undefined && existsSync(final);
  const missingPhases = restoredPhases.map((phase) => `${phase}.ckpt`).filter((f) => !existsSync(path.join(dir, f)));
  if (o.upToPhase !== undefined && missingPhases.length > 0)
    throw new Error(
      `${dir}: no ${missingPhases.join(', ')}: phase ${o.upToPhase} has not written a checkpoint yet (or the record was kept without weights)`,
    );
  if (!hasFinal && missingPhases.length > 0)
    throw new Error(
      `${dir}: this record holds no weights (no ${FINAL_CHECKPOINT}, no ${missingPhases.join(', ')}): it was kept without them (scripts/keep-records.sh without --weights); train it again with telepath run`,
    );
  const runsDir = path.dirname(path.dirname(path.dirname(dir)));
  const checkpoint = hasFinal ? await readCheckpoint(final) : null;
  const build = (arm: Arm) =>
    buildArm(method, dir, exp, arm, resolved.seed, { train: [], vocabulary: {} }, examples, runsDir);
  let { state, lm, tokenizer } = await build(hasFinal ? { ...resolved.arm, initFrom: '' } : resolved.arm);
  // Values a method measures at init from the LM it starts from (CoLaR's embStd, the coprocessor's
  // latentScale) are variables in final.ckpt. A final.ckpt written before they were lacks them:
  // build from the recorded initFrom, so init measures them on the LM the arm trained from.
  const missing = checkpoint ? [...state.variables().keys()].filter((k) => !checkpoint.tensors.has(`param/${k}`)) : [];
  if (missing.length > 0 && resolved.arm.initFrom) {
    state.dispose();
    console.error(
      `[telepath] ${final} has no ${missing.join(', ')} (written before they were checkpointed); measuring them on ${resolved.arm.initFrom}'s trained LM, as training did`,
    );
    ({ state, lm, tokenizer } = await build(resolved.arm));
  }
  /** The step of the last checkpoint restored (final.ckpt: the last phase's last step). */
  let step = checkpoint?.meta.step ?? 0;
  try {
    if (checkpoint) {
      const params = new Map([...state.variables()].filter(([k]) => !missing.includes(k)));
      restoreCheckpoint(final, checkpoint, { params, modelConfig: lm.config });
    } else {
      for (const phase of restoredPhases) {
        const file = path.join(dir, `${phase}.ckpt`);
        const phaseCheckpoint = await readCheckpoint(file);
        restoreCheckpoint(file, phaseCheckpoint, { params: state.trainable(phase), modelConfig: lm.config });
        step = phaseCheckpoint.meta.step;
      }
    }
  } catch (e) {
    state.dispose();
    throw e;
  }
  return { method, state, lm, tokenizer, step };
}
