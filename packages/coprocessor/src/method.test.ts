import * as tf from '@tensorflow/tfjs-core';
import {
  DEFAULT_OPTIM_CONFIG,
  encodeExample,
  initBackend,
  Rng,
  train,
  type Example,
  type TinyLm,
} from '@telepath/core';
import { expectNoLeak } from '@telepath/core/testing';
import { beforeAll, describe, expect, it } from 'vitest';
import { COPROCESSOR_VARIANTS, type CoprocessorConfig } from './config.js';
import { latentsFor } from './model.js';
import { coprocessor } from './method.js';
import { LATENT_SCALE_VARIABLE, type CoprocessorState } from './state.js';
import { toyBase, toyExamples } from './testing.js';

beforeAll(async () => {
  await initBackend('cpu', { quiet: true });
});

const data = toyExamples(64);
const at = (phase = 'sft') => ({ step: 0, phase, rng: new Rng(0) });
const snapshot = (m: Map<string, tf.Variable>) => new Map([...m].map(([k, v]) => [k, v.dataSync().slice()]));
const optim = { ...DEFAULT_OPTIM_CONFIG, lr: 1e-2, lrMinRatio: 1, warmupSteps: 0 };

function setup(config: Partial<CoprocessorConfig>, seed = 0): CoprocessorState {
  const { lm, tokenizer } = toyBase(data, seed);
  return coprocessor.init(
    { lm, tokenizer, rng: new Rng(seed), backend: 'cpu' },
    { ...coprocessor.defaults, steps: 3, latentTokens: 2, ...config },
  );
}

async function trainFew(s: CoprocessorState, phase: string, steps: number): Promise<number[]> {
  const res = await train({
    params: s.trainable(phase),
    rng: new Rng(9),
    config: { steps, logEvery: 100, optim },
    loss: (a) => coprocessor.loss(s, a.rng.shuffle([...data]).slice(0, 8), { step: a.step, phase, rng: a.rng }),
  });
  return res.losses;
}

const baseOf = (s: CoprocessorState): TinyLm => s.base;

describe('coprocessor init', () => {
  it('copies the Base into the Coprocessor, with separate variables', () => {
    const s = setup({ variant: 'liu' });
    for (const [n, v] of s.base.params) {
      expect(Array.from(s.cp.lm.params.get(n)!.dataSync()), n).toEqual(Array.from(v.dataSync()));
      expect(s.cp.lm.params.get(n)).not.toBe(v);
    }
    s.dispose();
  });

  it('rejects unknown variants, keys and misplaced options, listing the choices', () => {
    const { lm, tokenizer } = toyBase(data);
    const ctx = { lm, tokenizer, rng: new Rng(0), backend: 'cpu' };
    expect(() => coprocessor.init(ctx, { ...coprocessor.defaults, variant: 'h3' as never })).toThrow(
      'coprocessor: unknown variant "h3". Expected one of: liu, h1, h2, h2-embed',
    );
    expect(() => coprocessor.init(ctx, { ...coprocessor.defaults, latentToken: 3 } as never)).toThrow(
      /unknown config key "latentToken"/,
    );
    expect(() => coprocessor.init(ctx, { ...coprocessor.defaults, variant: 'h1', frozenBaseSteps: 5 })).toThrow(
      /h2 and h2-embed only/,
    );
    expect(
      coprocessor.phases({ ...coprocessor.defaults, variant: 'h2', pretrainSteps: 4, frozenBaseSteps: 2, steps: 7 }),
    ).toEqual([
      { phase: 'pretrain', steps: 4 },
      { phase: 'warm', steps: 2 },
      { phase: 'sft', steps: 7 },
    ]);
    expect(coprocessor.phases({ ...coprocessor.defaults, lr: 3e-4 })).toEqual([
      { phase: 'sft', steps: 1000, optim: { lr: 3e-4 } },
    ]);
    lm.dispose();
  });
});

describe('gradients', () => {
  for (const variant of COPROCESSOR_VARIANTS) {
    it(`${variant}: every trained variable gets a gradient through the Base, and only those are trained`, () => {
      const s = setup({ variant });
      const trained = s.trainable('sft');
      expect([...trained.keys()].some((k) => !k.startsWith('copro.'))).toBe(s.spec.trainBase);
      const all = [...new Set([...s.variables().values(), ...s.cp.lm.params.values()])].filter((v) => v.trainable); // not the latent scale, a constant
      const { grads } = tf.variableGrads(() => coprocessor.loss(s, data.slice(0, 4), at()), all);
      const byName = new Map([...s.variables()].map(([k, v]) => [v.name, k]));
      const nonZero = new Set(
        Object.entries(grads)
          .filter(([, g]) => tf.tidy(() => tf.max(tf.abs(g)).dataSync()[0]) > 0)
          .map(([n]) => byName.get(n) ?? `unlisted:${n}`),
      );
      for (const k of trained.keys()) expect(nonZero.has(k), `${k} has no gradient`).toBe(true);
      // Coprocessor parameters left out of `trainable` really have no path to the loss.
      expect([...nonZero].filter((k) => k.startsWith('unlisted:'))).toEqual([]);
      tf.dispose(Object.values(grads));
      s.dispose();
    });
  }
});

describe('training', () => {
  for (const variant of ['liu', 'h1'] as const) {
    it(`${variant}: the Base is bitwise unchanged and every Coprocessor variable changed after training`, async () => {
      const s = setup({ variant });
      const base = snapshot(baseOf(s).params);
      const copro = snapshot(s.trainable('sft'));
      const losses = await trainFew(s, 'sft', 4);
      expect(losses.every(Number.isFinite)).toBe(true);
      for (const [k, v] of baseOf(s).params)
        expect(Buffer.from(v.dataSync().buffer).equals(Buffer.from(base.get(k)!.buffer)), k).toBe(true);
      for (const [k, v] of s.trainable('sft'))
        expect(Array.from(v.dataSync()), k).not.toEqual(Array.from(copro.get(k)!));
      s.dispose();
    });
  }

  it('h2 and h2-embed change both the Base and the Coprocessor; the warm phase keeps the Base frozen', async () => {
    for (const variant of ['h2', 'h2-embed'] as const) {
      const s = setup({ variant, frozenBaseSteps: 2 });
      const before = snapshot(s.variables());
      await trainFew(s, 'warm', 2);
      for (const [k, v] of baseOf(s).params)
        expect(Array.from(v.dataSync()), `${variant} warm ${k}`).toEqual(Array.from(before.get(k)!));
      await trainFew(s, 'sft', 3);
      for (const [k, v] of s.variables())
        if (k !== LATENT_SCALE_VARIABLE)
          expect(Array.from(v.dataSync()), `${variant} ${k}`).not.toEqual(Array.from(before.get(k)!));
      expect(s.variables().get(LATENT_SCALE_VARIABLE)!.dataSync()[0]).toBe(before.get(LATENT_SCALE_VARIABLE)![0]); // measured at init, never trained
      s.dispose();
    }
  });

  it('learns the toy task through the channel (loss falls), and the pretraining phase runs', async () => {
    const s = setup({ variant: 'h1', latentTokens: 4, pretrainSteps: 3, aheadTokens: 4 });
    const pre = await trainFew(s, 'pretrain', 3);
    expect(pre.every(Number.isFinite)).toBe(true);
    const losses = await trainFew(s, 'sft', 30);
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    expect(mean(losses.slice(-5))).toBeLessThan(0.85 * mean(losses.slice(0, 5))); // frozen random Base: slow but steady
    s.dispose();
  });
});

describe('shapes, generation and leaks', () => {
  for (const K of [1, 2, 4, 8, 16]) {
    it(`N_L = ${K}: latents, KV and generations have the budget's shape`, async () => {
      for (const variant of ['liu', 'h1'] as const) {
        const s = setup({ variant, latentTokens: K });
        const B = 3;
        tf.tidy(() => {
          const { out, prompt } = latentsFor(
            s,
            data.slice(0, B).map((ex) => [s.tokenizer.bosId, ...s.tokenizer.encode(`${ex.question}\n`)]),
          );
          expect(out.z.shape).toEqual([B, K, 16]);
          expect(out.kv.length).toBe(2);
          for (const l of out.kv)
            expect([l.k.shape, l.v.shape]).toEqual([
              [B, 2, K, 8],
              [B, 2, K, 8],
            ]);
          expect(prompt.cache.keyMask.shape[0]).toBe(B);
        });
        for (const answerPositions of ['overlap', 'after-latents'] as const) {
          const gens = await coprocessor.generate(
            { ...s, config: { ...s.config, answerPositions } },
            data.slice(0, B),
            { maxNewTokens: 4, temperature: 0, topP: 1, rng: new Rng(0) },
          );
          expect(gens.map((g) => [g.reasoningKind, g.reasoningLength])).toEqual(Array(B).fill(['latents', K]));
        }
        const trace = await coprocessor.trace!(s, data.slice(0, 5));
        expect(trace.slots.length).toBe(K);
        const W = variant === 'h1' ? 2 * 2 * 16 : 16; // h1: 2 layers × (k, v) × C
        for (const sl of trace.slots) expect([sl.rows, sl.width, sl.vectors.length]).toEqual([5, W, 5 * W]);
        s.dispose();
      }
    });
  }

  it("trace records what the Base reads: h1 every layer's keys and values at each latent, liu the scaled embeddings", async () => {
    for (const variant of ['h1', 'liu'] as const) {
      const s = setup({ variant, latentTokens: 2 });
      const batch = data.slice(0, 3);
      const trace = await coprocessor.trace!(s, batch);
      tf.tidy(() => {
        const { latents } = latentsFor(
          s,
          batch.map((ex) => encodeExample(s.tokenizer, ex).prompt),
        );
        for (let k = 0; k < 2; k++) {
          for (let b = 0; b < 3; b++) {
            const row = Array.from(
              trace.slots[k].vectors.subarray(b * trace.slots[k].width, (b + 1) * trace.slots[k].width),
            );
            const want =
              latents.injection === 'kv'
                ? latents.kv.flatMap(({ k: key, v }) =>
                    [key, v].flatMap((t) =>
                      Array.from(tf.reshape(tf.slice(t, [b, 0, k, 0], [1, -1, 1, -1]), [-1]).dataSync()),
                    ),
                  ) // layer l: k then v, heads × head width
                : Array.from(tf.slice(latents.z, [b, k, 0], [1, 1, -1]).dataSync());
            row.forEach((x, i) => expect(x, `${variant} slot ${k} row ${b} [${i}]`).toBeCloseTo(want[i], 5));
          }
        }
      });
      s.dispose();
    }
  });

  it('loss, generate (every control) and trace leak no tensors', async () => {
    for (const variant of COPROCESSOR_VARIANTS) {
      const s = setup({ variant, latentTokens: 3, pretrainSteps: 1 });
      await expectNoLeak(() =>
        tf.tidy(() => {
          coprocessor.loss(s, data.slice(0, 4), at());
          coprocessor.loss(s, data.slice(0, 4), at('pretrain'));
        }),
      );
      for (const control of ['none', 'zero', 'shuffle', 'random'] as const) {
        await expectNoLeak(() =>
          coprocessor.generate(s, data.slice(0, 3), {
            maxNewTokens: 4,
            temperature: 0,
            topP: 1,
            rng: new Rng(0),
            control,
          }),
        );
      }
      await expectNoLeak(() => coprocessor.trace!(s, data.slice(0, 40)));
      s.dispose();
    }
  });

  it('generation is deterministic, and control "none" equals no control', async () => {
    const s = setup({ variant: 'liu', latentTokens: 2 });
    await trainFew(s, 'sft', 10);
    const batch: Example[] = data.slice(0, 6);
    const none = await coprocessor.generate(s, batch, { maxNewTokens: 4, temperature: 0, topP: 1, rng: new Rng(0) });
    const again = await coprocessor.generate(s, batch, {
      maxNewTokens: 4,
      temperature: 0,
      topP: 1,
      rng: new Rng(0),
      control: 'none',
    });
    expect(again).toEqual(none);
    s.dispose();
  });
});
