import * as tf from '@tensorflow/tfjs-core';
import { DEFAULT_OPTIM_CONFIG, initBackend, Rng, train } from '@telepath/core';
import { expectNoLeak, toyAdditionExamples } from '@telepath/core/testing';
import { beforeAll, describe, expect, it } from 'vitest';
import { cot } from './method.js';
import { tinyLmFor } from './testing.js';

beforeAll(async () => {
  await initBackend('cpu', { quiet: true });
});

function setup(variant: 'cot' | 'no-cot', seed = 0) {
  const data = toyAdditionExamples(64, 1);
  const { lm, tokenizer } = tinyLmFor(data, 24, seed);
  const state = cot.init({ lm, tokenizer, rng: new Rng(seed), backend: 'cpu' }, { ...cot.defaults, variant, steps: 5 });
  return { data, tokenizer, state };
}

describe('cot method', () => {
  it('trains only after the prompt: CoT on steps and answer, No-CoT on the answer', () => {
    for (const variant of ['cot', 'no-cot'] as const) {
      const { data, state } = setup(variant);
      const l = tf.tidy(
        () => cot.loss(state, data.slice(0, 4), { step: 0, phase: 'sft', rng: new Rng(0) }).dataSync()[0],
      );
      expect(l).toBeGreaterThan(Math.log(state.tokenizer.size) * 0.8); // untrained ≈ ln V
      state.dispose();
    }
  });

  it('does not leak tensors in loss or generate', async () => {
    const { data, state } = setup('cot');
    await expectNoLeak(() =>
      tf.tidy(() => {
        cot.loss(state, data.slice(0, 4), { step: 0, phase: 'sft', rng: new Rng(0) });
      }),
    );
    await expectNoLeak(() =>
      cot.generate(state, data.slice(0, 3), { maxNewTokens: 8, temperature: 0, topP: 1, rng: new Rng(0) }),
    );
    state.dispose();
  });

  it('a smoke training run lowers the loss, changes every parameter, and CoT reports its reasoning length', async () => {
    const { data, state } = setup('cot');
    const before = new Map([...state.lm.params].map(([k, v]) => [k, v.dataSync().slice()]));
    const res = await train({
      params: state.trainable('sft'),
      rng: new Rng(3),
      config: {
        steps: 40,
        logEvery: 100,
        optim: { ...DEFAULT_OPTIM_CONFIG, lr: 5e-3, warmupSteps: 5, weightDecay: 0 },
      },
      loss: (at) =>
        cot.loss(state, at.rng.shuffle([...data]).slice(0, 8), { step: at.step, phase: 'sft', rng: at.rng }),
    });
    expect(res.losses[res.losses.length - 1]).toBeLessThan(res.losses[0] * 0.5);
    for (const [k, v] of state.lm.params) expect(Array.from(v.dataSync()), k).not.toEqual(Array.from(before.get(k)!));
    const gens = await cot.generate(state, data.slice(0, 8), {
      maxNewTokens: 12,
      temperature: 0,
      topP: 1,
      rng: new Rng(0),
    });
    expect(gens).toHaveLength(8);
    expect(gens[0].reasoningKind).toBe('tokens');
    expect(gens.some((g) => g.reasoningLength > 0)).toBe(true);
    state.dispose();
  }, 30_000); // 40 steps on the cpu backend: ≈ 3 s idle, over 5 s beside a training run

  it('rejects unknown variants and config keys', () => {
    const { state } = setup('cot');
    const ctx = { lm: state.lm, tokenizer: state.tokenizer, rng: new Rng(0), backend: 'cpu' };
    expect(() => cot.init(ctx, { ...cot.defaults, variant: 'tot' as never })).toThrow(
      'cot: unknown variant "tot". Expected one of: cot, no-cot',
    );
    expect(() => cot.init(ctx, { ...cot.defaults, step: 3 } as never)).toThrow(/unknown config key "step"/);
    state.dispose();
  });
});
