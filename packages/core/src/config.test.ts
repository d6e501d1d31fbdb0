import { describe, expect, it } from 'vitest';
import { applySetOverrides, parseConfig } from './config.js';

const DEFAULTS = { lr: 1e-3, name: 'x', flags: { useCache: true }, sizes: [1, 2], any: null as unknown };

describe('parseConfig', () => {
  it('applies overrides without touching the defaults', () => {
    const c = parseConfig(DEFAULTS, { lr: 0.1, flags: { useCache: false }, sizes: [4] });
    expect(c).toEqual({ lr: 0.1, name: 'x', flags: { useCache: false }, sizes: [4], any: null });
    expect(DEFAULTS.lr).toBe(1e-3);
  });

  it('rejects unknown keys, naming the key and the valid ones', () => {
    expect(() => parseConfig(DEFAULTS, { lrr: 1 }, 'colar')).toThrow(
      'colar: unknown config key "lrr". Expected one of: lr, name, flags, sizes, any',
    );
    expect(() => parseConfig(DEFAULTS, { flags: { useCach: true } })).toThrow(/unknown config key "flags.useCach"/);
  });

  it('rejects wrong types, naming the key, the expected and the given type', () => {
    expect(() => parseConfig(DEFAULTS, { lr: '5' })).toThrow('config key "lr": expected number, got string ("5")');
    expect(() => parseConfig(DEFAULTS, { sizes: [1, 'a'] })).toThrow(/"sizes\[1\]": expected number/);
    expect(() => parseConfig(DEFAULTS, { flags: 3 })).toThrow(/flags must be an object/);
    expect(() => parseConfig(DEFAULTS, { lr: Number.NaN })).toThrow(/finite/);
  });

  it('lets a null default take any value', () => {
    expect(parseConfig(DEFAULTS, { any: { a: 1 } }).any).toEqual({ a: 1 });
  });

  it('turns --set assignments into overrides', () => {
    const o = applySetOverrides({ train: { steps: 1 } }, ['train.steps=20', 'name=abc', 'flags.useCache=false']);
    expect(o).toEqual({ train: { steps: 20 }, name: 'abc', flags: { useCache: false } });
    expect(() => applySetOverrides({}, ['novalue'])).toThrow(/key=value/);
  });
});
