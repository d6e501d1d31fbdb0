/**
 * The latent controls of an arm whose reasoning is latent: the same test questions answered with the
 * latents zeroed, shuffled across questions or replaced by random vectors of the same norm
 * (`eval.controls`). A control that cannot change what the method's latents carry
 * (`LatentMethod.vacuousControls`, e.g. shuffling soft tokens that are the same for every question)
 * is not run; its reason is returned instead. Each control's per-question scores go to
 * `samples.control-<control>.jsonl` ({ id, correct } lines), from which the report pairs its row
 * with the arm's own latents. With `parts`, each finished control is kept (key `control-<c>`).
 */
import * as path from 'node:path';
import { writeFileAtomic, type Example, type LatentControl, type LatentMethod, type MethodState } from '@telepath/core';
import type { Task } from '@telepath/tasks';
import type { ArmSummary } from '../running/arm-summary.js';
import { controlSamplesFile } from './arm-eval.js';
import { evaluate } from './evaluate.js';
import { keepAs, type FinishedParts } from './finished-parts.js';

type Settings = Parameters<typeof evaluate>[4];
type Options = Omit<NonNullable<Parameters<typeof evaluate>[5]>, 'control' | 'label'> & {
  label: string;
  parts?: FinishedParts;
};

export interface ControlResults {
  controls: NonNullable<ArmSummary['controls']>;
  /** control → why it was not run. */
  vacuous: Record<string, string>;
}

/** `samples.control-<control>.jsonl`: each question's id and whether the control's answer was right. */
export async function writeControlScores(
  dir: string,
  control: string,
  samples: readonly { id: string; correct: boolean }[],
): Promise<void> {
  const lines = samples.map((x) => JSON.stringify({ id: x.id, correct: x.correct }));
  await writeFileAtomic(path.join(dir, controlSamplesFile(control)), lines.join('\n') + '\n');
}

export async function evaluateControls<C, S extends MethodState>(
  method: LatentMethod<C, S>,
  config: C,
  state: S,
  test: Example[],
  task: Task,
  wanted: readonly LatentControl[],
  settings: Settings,
  dir: string,
  o: Options,
): Promise<ControlResults | 'interrupted'> {
  const out: ControlResults = { controls: {}, vacuous: {} };
  const cannotFail = method.vacuousControls?.(config) ?? {};
  for (const control of wanted) {
    const why = cannotFail[control];
    if (why !== undefined) {
      out.vacuous[control] = why;
      continue;
    }
    const c = await evaluate(method, state, test, task, settings, {
      ...o,
      label: `${o.label} [${control}]`,
      control,
      ...keepAs(o.parts, `control-${control}`),
    });
    if (c === 'interrupted') return 'interrupted';
    await writeControlScores(dir, control, c.samples);
    out.controls[control] = { accuracy: c.accuracy, stderr: c.stderr, correct: c.correct, total: c.total };
  }
  return out;
}
