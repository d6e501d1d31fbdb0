import * as tf from '@tensorflow/tfjs-core';
import { initBackend, Rng, train } from '@telepath/core';
import { expectNoLeak } from '@telepath/core/testing';
import { beforeAll, describe, expect, it } from 'vitest';
import { colar } from './method.js';
import { TOY_OPTIM, toyState } from './testing.js';

beforeAll(async () => {
  await initBackend('cpu', { quiet: true });
});

const OPTIM = { ...TOY_OPTIM, lrMinRatio: 0.1, warmupSteps: 1 };

describe('colar method', () => {
  it('smoke: 3 SFT steps give finite losses and change every trainable variable; the embeddings stay frozen by default', async () => {
    const { state, data } = toyState();
    const params = state.trainable('sft');
    expect(params.has('wte')).toBe(false);
    expect(params.has('colar.head.wLogStd')).toBe(true);
    const wte = state.lm.params.get('wte')!.dataSync().slice();
    const before = new Map([...params].map(([k, v]) => [k, v.dataSync().slice()]));
    const res = await train({
      params,
      rng: new Rng(3),
      config: { steps: 3, logEvery: 100, optim: OPTIM },
      loss: (at) => colar.loss(state, data.slice(0, 8), { step: at.step, phase: 'sft', rng: at.rng }),
    });
    expect(res.losses.every(Number.isFinite)).toBe(true);
    for (const [k, v] of params) expect(Array.from(v.dataSync()), k).not.toEqual(Array.from(before.get(k)!));
    expect(Array.from(state.lm.params.get('wte')!.dataSync())).toEqual(Array.from(wte));
    state.dispose();
  });

  it('smoke: 3 RL steps from the config (minibatches of the buffer) give finite losses', async () => {
    const { state, data } = toyState({
      rlSteps: 3,
      groupSize: 2,
      rolloutQuestions: 2,
      rlMinibatch: 2,
      maxLatents: 3,
      maxNewTokens: 3,
    });
    state.reward = (_ex, answer) => answer.length % 2;
    const res = await train({
      params: state.trainable('rl'),
      rng: new Rng(4),
      config: { steps: 3, logEvery: 100, optim: OPTIM },
      loss: (at) => colar.loss(state, data.slice(0, 8), { step: at.step, phase: 'rl', rng: at.rng }),
      prepare: (at) => colar.prepare!(state, data.slice(0, 8), { step: at.step, phase: 'rl', rng: at.rng }),
    });
    expect(res.losses.every(Number.isFinite)).toBe(true);
    expect(state.rlStats.rollouts).toBe(8); // 2 questions × G 2 at steps 0 and 2 (minibatches of 2)
    state.dispose();
  });

  it('phases: sft, then rl at its own constant learning rate when rlSteps > 0', () => {
    expect(colar.phases({ ...colar.defaults, sftSteps: 7 })).toEqual([{ phase: 'sft', steps: 7 }]);
    expect(colar.phases({ ...colar.defaults, sftSteps: 7, rlSteps: 3, rlLr: 2e-5 })).toEqual([
      { phase: 'sft', steps: 7 },
      { phase: 'rl', steps: 3, optim: { lr: 2e-5, warmupSteps: 0, lrMinRatio: 1 } },
    ]);
  });

  it('generate and trace report latents and leak nothing, with and without a control', async () => {
    const { state, data } = toyState({ maxLatents: 4, compressionFactor: 2 });
    const o = { maxNewTokens: 4, temperature: 0, topP: 1, rng: new Rng(0) };
    const gens = await expectNoLeak(() => colar.generate(state, data.slice(0, 3), o));
    expect(gens.map((g) => g.id)).toEqual(data.slice(0, 3).map((d) => d.id));
    for (const g of gens) {
      expect(g.reasoningKind).toBe('latents');
      expect(g.reasoningLength).toBeGreaterThanOrEqual(1);
      expect(g.text).toMatch(/^\[\d+ latents(, capped)?\]###/);
      expect(g.reasoningCapped).toBe(g.text.includes(', capped]'));
    }
    // One latent allowed: the untrained toy model does not sample the stop at once, so its rows are capped.
    const one = toyState({ maxLatents: 1 });
    const capped = await colar.generate(one.state, one.data.slice(0, 3), o);
    expect(capped.every((g) => g.reasoningLength === 1)).toBe(true);
    expect(capped.some((g) => g.reasoningCapped)).toBe(true);
    for (const g of capped) expect(g.reasoningCapped).toBe(g.text.includes(', capped]'));
    one.state.dispose();
    await expectNoLeak(() => colar.generate(state, data.slice(0, 3), { ...o, control: 'zero' }));
    const t = await expectNoLeak(() => colar.trace!(state, data.slice(0, 5)));
    expect(t.slots[0].rows).toBe(5);
    expect(t.slots[0].width).toBe(state.lm.config.width);
    expect(t.slots.length).toBeLessThanOrEqual(4);
    await expectNoLeak(() =>
      tf.tidy(() => {
        colar.loss(state, data.slice(0, 4), { step: 0, phase: 'sft', rng: new Rng(0) });
      }),
    );
    state.dispose();
  });

  it('rejects unknown keys, bad values and an RL phase without a reward, listing the choices', () => {
    const { state, tokenizer } = toyState();
    const ctx = { lm: state.lm, tokenizer, rng: new Rng(0), backend: 'cpu' };
    expect(() => colar.init(ctx, { ...colar.defaults, compresionFactor: 2 } as never)).toThrow(
      /unknown config key "compresionFactor"/,
    );
    expect(() => colar.init(ctx, { ...colar.defaults, compressionFactor: '5' } as never)).toThrow(
      /expected number, got string/,
    );
    expect(() => colar.init(ctx, { ...colar.defaults, pooling: 'max' } as never)).toThrow(
      'colar: unknown pooling "max". Expected one of: scaled-sum, mean',
    );
    expect(() => colar.init(ctx, { ...colar.defaults, latentLoss: 'nll', headKind: 'deterministic' })).toThrow(
      /needs the gaussian head/,
    );
    expect(() => colar.init(ctx, { ...colar.defaults, rlSteps: 2 })).toThrow(/needs MethodContext.reward/);
    expect(() => colar.loss(state, [], { step: 0, phase: 'ae', rng: new Rng(0) })).toThrow(
      'colar: unknown phase "ae". Expected one of: sft, rl',
    );
    state.dispose();
  });
});
