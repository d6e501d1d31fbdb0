import * as tf from '@tensorflow/tfjs-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { initBackend } from './backend.js';
import { fixedInitLm, fixedPattern, tinyLmConfig, tinyLm } from './testing.js';

beforeAll(async () => {
  await initBackend('cpu', { quiet: true });
});

const values = (m: Map<string, tf.Variable>) => new Map([...m].map(([k, v]) => [k, Array.from(v.dataSync())]));

describe('fixedInitLm', () => {
  it('gives identical weights every time, unlike the seeded initialiser', () => {
    const a = fixedInitLm(tinyLmConfig);
    const b = fixedInitLm(tinyLmConfig, 'other');
    expect(values(b.params)).toEqual(values(a.params));
    const seeded = tinyLm({}, 0);
    expect(Array.from(seeded.params.get('wte')!.dataSync())).not.toEqual(Array.from(a.params.get('wte')!.dataSync()));
    for (const m of [a, b, seeded]) m.dispose();
  });

  it('follows the documented formula, pinned by literal values', () => {
    const lm = fixedInitLm(tinyLmConfig);
    const std = tinyLmConfig.initStd;
    const wte = lm.params.get('wte')!.dataSync();
    const u = fixedPattern('wte', wte.length);
    expect(Array.from(wte.slice(0, 4))).toEqual(
      Array.from(Float32Array.from(u.slice(0, 4), (x) => Math.sqrt(3) * std * x)),
    );
    const wo = lm.params.get('h1.attn.wo')!.dataSync();
    expect(wo[5]).toBe(
      Math.fround(Math.sqrt(3) * (std / Math.sqrt(2 * tinyLmConfig.layers)) * fixedPattern('h1.attn.wo', 6)[5]),
    );
    expect(lm.params.get('h0.ln1.g')!.dataSync()[3]).toBe(Math.fround(1 + 0.1 * fixedPattern('h0.ln1.g', 4)[3]));
    expect(lm.params.get('h0.mlp.bfc')!.dataSync()[2]).toBe(Math.fround(0.1 * std * fixedPattern('h0.mlp.bfc', 3)[2]));
    // Pinned (computed independently in Python): a formula change moves every golden fixture.
    expect(Array.from(fixedPattern('wte', 3), (x) => x.toFixed(12))).toEqual([
      '-0.963415834587',
      '-0.898920732341',
      '-0.362289675096',
    ]);
    lm.dispose();
  });

  it('patterns lie in [−1, 1), differ between parameters and are not low-rank', () => {
    const p = fixedPattern('h0.attn.wq', 64 * 64);
    expect(Math.min(...p)).toBeGreaterThanOrEqual(-1);
    expect(Math.max(...p)).toBeLessThan(1);
    const mean = p.reduce((s, x) => s + x, 0) / p.length;
    expect(Math.abs(mean)).toBeLessThan(0.05);
    expect(fixedPattern('h0.attn.wk', 8)).not.toEqual(fixedPattern('h0.attn.wq', 8));
    const rank = tf.tidy(() => {
      const m = tf.tensor2d(Float32Array.from(p), [64, 64]);
      const [, r] = tf.linalg.qr(m);
      return tf
        .abs(tf.linalg.bandPart(r, 0, 0))
        .dataSync()
        .filter((x) => x > 1e-3).length;
    });
    expect(rank).toBe(64);
  });
});
