/**
 * Reading an experiment file: JSON, then `--set key=value` overrides (`--set arms.cot.config.steps=100`
 * addresses an arm by name; `--set profile=<name>` applies the config's `profiles.<name>` list
 * first), then the configs of the experiments its `reuse` arms name, then validation
 * (experiment.ts). Every error names the file and the key.
 */
import { existsSync, promises as fs } from 'node:fs';
import * as path from 'node:path';
import { applySetOverrides } from '@telepath/core';
import { isOverrideList, validateExperiment, type ExperimentConfig } from './experiment.js';

/** Raw configs of the experiments named by `reuse` arms, transitively, read from `dir`. */
async function readSources(
  raw: unknown,
  dir: string,
  into: Record<string, unknown> = {},
): Promise<Record<string, unknown>> {
  const arms = (raw as { arms?: unknown })?.arms;
  if (!Array.isArray(arms)) return into;
  for (const a of arms) {
    const reuse = (a as { reuse?: unknown })?.reuse;
    if (typeof reuse !== 'string' || !reuse.includes('/')) continue;
    const name = reuse.split('/')[0];
    const file = path.join(dir, `${name}.json`);
    if (name in into || !existsSync(file)) continue;
    try {
      into[name] = JSON.parse(await fs.readFile(file, 'utf8'));
    } catch (e) {
      throw new Error(`${file} (reused by an arm): ${(e as Error).message}`);
    }
    await readSources(into[name], dir, into);
  }
  return into;
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
  return experimentFromRaw(raw, file, sets);
}

/** loadExperiment on an already parsed config (a sweep's per-value experiment); `file` locates reused sources and names errors. */
export async function experimentFromRaw(raw: unknown, file: string, sets: string[] = []): Promise<ExperimentConfig> {
  const { profile, own } = splitProfile(sets);
  const where = path.basename(file);
  const withSets = applyArmSets(profile ? withProfile(raw, profile, where) : (raw as Record<string, unknown>), own);
  const sources = await readSources(withSets, path.dirname(file));
  if (profile)
    for (const [name, src] of Object.entries(sources))
      sources[name] = withProfile(src, profile, `${name}.json (reused by ${where})`);
  return validateExperiment(withSets, where, sources);
}

/** `--set profile=<name>` (the last one wins) apart from the plain overrides. */
export function splitProfile(sets: string[]): { profile: string | undefined; own: string[] } {
  const isProfile = (x: string) => x.startsWith('profile=');
  return {
    profile: sets
      .filter(isProfile)
      .map((x) => x.slice('profile='.length))
      .pop(),
    own: sets.filter((x) => !isProfile(x)),
  };
}

/**
 * The experiment under profile `name`: its `profiles[name]` overrides applied, and `-<name>` added
 * to its name so the profile's runs never mix with the default ones.
 */
function withProfile(raw: unknown, name: string, where: string): Record<string, unknown> {
  const c = raw as { name?: unknown; profiles?: unknown };
  const profiles = (typeof c?.profiles === 'object' && c.profiles !== null ? c.profiles : {}) as Record<
    string,
    unknown
  >;
  const sets = profiles[name];
  if (sets === undefined)
    throw new Error(`${where}: no profile "${name}". Profiles: ${Object.keys(profiles).join(', ') || '(none)'}`);
  if (!isOverrideList(sets))
    throw new Error(`${where}: profiles.${name} must be a list of "key=value" overrides (the --set syntax)`);
  const out = applyArmSets(raw as Record<string, unknown>, sets);
  return { ...out, name: `${String(c.name)}-${name}` };
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
