/**
 * Typed configs with defaults next to their owner. `parseConfig(defaults, overrides)` returns a
 * deep copy of the defaults with the overrides applied, and throws on an unknown key or a value
 * of the wrong type, naming the key path and what was expected:
 *   parseConfig({ lr: 1e-3 }, { lrr: 1 })  →  Unknown config key "lrr". Expected one of: lr
 *   parseConfig({ lr: 1e-3 }, { lr: "1" }) →  Config key "lr": expected number, got string ("1")
 * A key whose default is `null` accepts any value; arrays are checked element by element against
 * the default's first element when there is one.
 */
import { UserError } from './errors.js';

export type DeepPartial<T> = T extends readonly (infer U)[]
  ? U[]
  : T extends object
    ? { [K in keyof T]?: DeepPartial<T[K]> }
    : T;

export class ConfigError extends UserError {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

export function parseConfig<C extends object>(defaults: C, overrides: unknown, where = 'config'): C {
  const out = structuredClone(defaults);
  if (overrides === undefined || overrides === null) return out;
  merge(out as Record<string, unknown>, overrides, where, '');
  return out;
}

function merge(target: Record<string, unknown>, src: unknown, where: string, prefix: string): void {
  if (!isPlainObject(src))
    throw new ConfigError(`${where}: ${prefix || 'config'} must be an object, got ${describe(src)}`);
  for (const [key, value] of Object.entries(src)) {
    const path = prefix ? `${prefix}.${key}` : key;
    if (!Object.prototype.hasOwnProperty.call(target, key)) {
      throw new ConfigError(
        `${where}: unknown config key "${path}". Expected one of: ${Object.keys(target)
          .map((k) => (prefix ? `${prefix}.${k}` : k))
          .join(', ')}`,
      );
    }
    const def = target[key];
    target[key] = checkValue(def, value, where, path);
  }
}

function checkValue(def: unknown, value: unknown, where: string, path: string): unknown {
  if (def === null || def === undefined) return structuredClone(value);
  if (Array.isArray(def)) {
    if (!Array.isArray(value))
      throw new ConfigError(`${where}: config key "${path}": expected array, got ${describe(value)}`);
    if (def.length === 0) return structuredClone(value);
    return value.map((v, i) => checkValue(def[0], v, where, `${path}[${i}]`));
  }
  if (isPlainObject(def)) {
    const copy = structuredClone(def) as Record<string, unknown>;
    merge(copy, value, where, path);
    return copy;
  }
  const expected = typeof def;
  if (typeof value !== expected)
    throw new ConfigError(`${where}: config key "${path}": expected ${expected}, got ${describe(value)}`);
  if (expected === 'number' && !Number.isFinite(value as number))
    throw new ConfigError(`${where}: config key "${path}": expected a finite number, got ${value}`);
  return value;
}

/**
 * Apply `key.path=value` assignments (from `--set`) to a plain object; the value is parsed as
 * JSON when it parses, else kept as a string. The result still goes through `parseConfig`.
 */
export function applySetOverrides(base: Record<string, unknown>, sets: string[]): Record<string, unknown> {
  const out = structuredClone(base);
  for (const s of sets) {
    const eq = s.indexOf('=');
    if (eq <= 0) throw new ConfigError(`--set ${s}: expected key=value`);
    const keys = s.slice(0, eq).split('.');
    const raw = s.slice(eq + 1);
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch {
      value = raw;
    }
    let node: Record<string, unknown> = out;
    for (const k of keys.slice(0, -1)) {
      if (!isPlainObject(node[k])) node[k] = {};
      node = node[k] as Record<string, unknown>;
    }
    node[keys[keys.length - 1]] = value;
  }
  return out;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function describe(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  const t = typeof v;
  if (t === 'string') return `string (${JSON.stringify(v)})`;
  if (t === 'object') return 'object';
  return `${t} (${String(v)})`;
}

/**
 * Range checks for numeric settings, each an error naming the key and the valid range:
 *   checkNumber('train.steps', -5, { integer: true, min: 0 }) → train.steps must be an integer ≥ 0, got -5
 */
export function checkNumber(
  key: string,
  value: unknown,
  r: { integer?: boolean; min?: number; max?: number; minExclusive?: boolean; maxExclusive?: boolean },
): number {
  const lo = r.min === undefined ? '' : `${r.minExclusive ? '>' : '≥'} ${r.min}`;
  const hi = r.max === undefined ? '' : `${r.maxExclusive ? '<' : '≤'} ${r.max}`;
  const range = [lo, hi].filter(Boolean).join(' and ');
  const expected = `${r.integer ? 'an integer' : 'a finite number'}${range ? ` ${range}` : ''}`;
  const v = value as number;
  const ok =
    typeof value === 'number' &&
    Number.isFinite(v) &&
    (!r.integer || Number.isInteger(v)) &&
    (r.min === undefined || (r.minExclusive ? v > r.min : v >= r.min)) &&
    (r.max === undefined || (r.maxExclusive ? v < r.max : v <= r.max));
  if (!ok) throw new ConfigError(`${key} must be ${expected}, got ${JSON.stringify(value) ?? String(value)}`);
  return v;
}
