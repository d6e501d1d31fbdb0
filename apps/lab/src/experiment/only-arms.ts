/**
 * `telepath run --arms a,b`: an experiment cut down to the named arms, plus every arm they start
 * from (`initFrom`, transitively), so a long reference can be trained (or read back) on its own.
 * A reused arm ends the walk: its `initFrom` names an arm of its source experiment, which the plan
 * follows there.
 * Baselines (`compareTo`) outside the cut are dropped from the table; run directories and records
 * are the same as in a full run, so a later full run reads these arms back.
 */
import type { ExperimentConfig } from './experiment.js';

export function onlyArms(exp: ExperimentConfig, names: readonly string[]): ExperimentConfig {
  const known = new Set(exp.arms.map((a) => a.name));
  const unknown = names.filter((n) => !known.has(n));
  if (unknown.length > 0) {
    throw new Error(
      `--arms: ${exp.name} has no arm ${unknown.map((n) => `"${n}"`).join(', ')}. Its arms: ${[...known].join(', ')}`,
    );
  }
  const keep = new Set<string>();
  const add = (name: string) => {
    if (keep.has(name)) return;
    keep.add(name);
    const arm = exp.arms.find((a) => a.name === name)!;
    if (arm.initFrom && !arm.reuse) add(arm.initFrom);
  };
  names.forEach(add);
  return {
    ...exp,
    arms: exp.arms.filter((a) => keep.has(a.name)),
    compareTo: exp.compareTo.filter((b) => keep.has(b)),
  };
}

/**
 * `--arms` across a sweep's experiments: each keeps the named arms it has (with what they start
 * from); a name that no experiment has is an error.
 */
export function onlyArmsOfEach(experiments: ExperimentConfig[], names: readonly string[]): ExperimentConfig[] {
  const has = (e: ExperimentConfig, n: string) => e.arms.some((a) => a.name === n);
  const unknown = names.filter((n) => !experiments.some((e) => has(e, n)));
  if (unknown.length > 0)
    throw new Error(
      `--arms: no experiment of the sweep (${experiments.map((e) => e.name).join(', ')}) has arm ${unknown.map((n) => `"${n}"`).join(', ')}`,
    );
  return experiments.map((e) => onlyArms(e, names.filter((n) => has(e, n))));
}

/** The names of a `--arms` value: comma-separated, none empty. */
export function parseArmList(value: string): string[] {
  const names = value.split(',').map((s) => s.trim());
  if (names.some((n) => n === ''))
    throw new Error(`--arms: expected arm names separated by commas, got ${JSON.stringify(value)}`);
  return names;
}
