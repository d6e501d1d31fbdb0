import * as tf from '@tensorflow/tfjs-core';
import { initBackend, Rng, train } from '@telepath/core';
import { expectNoLeak, values } from '@telepath/core/testing';
import { beforeAll, describe, expect, it } from 'vitest';
import { rollout, stopDecisions, stopInputs } from './generate.js';
import { promptIds } from './layout.js';
import { colar } from './method.js';
import { TOY_OPTIM, toyState } from './testing.js';

beforeAll(async () => {
  await initBackend('cpu', { quiet: true });
});

const OPTIM = { ...TOY_OPTIM, lrMinRatio: 0.1, warmupSteps: 5 };

const sampled = (seed: number) => ({
  speed: 1,
  decoding: 'sample' as const,
  temperature: 1,
  topP: 1,
  maxNewTokens: 4,
  rng: new Rng(seed),
});

describe('inference at speed c', () => {
  it('stops with the probability of sampling ### (temperature 1) or when ### is the argmax (greedy)', async () => {
    // Row 0: p(###) = 0.3, row 1: p(###) = 0.9 (### = id 2 of a 3-token vocabulary).
    const logits = tf.log(
      tf.tensor2d([
        [0.5, 0.2, 0.3],
        [0.05, 0.05, 0.9],
      ]),
    ) as tf.Tensor2D;
    const read = async (temperature: number) => {
      const t = stopInputs(logits, 2, temperature);
      const v = await values(t);
      t.dispose();
      return v;
    };
    expect(stopDecisions(await read(0), 2, 0, new Rng(0))).toEqual([false, true]);
    const rng = new Rng(1);
    const counts = [0, 0];
    const p = await read(1);
    for (let i = 0; i < 4000; i++) stopDecisions(p, 2, 1, rng).forEach((s, b) => (counts[b] += s ? 1 : 0));
    expect(counts[0] / 4000).toBeCloseTo(0.3, 1);
    expect(counts[1] / 4000).toBeCloseTo(0.9, 1);
    logits.dispose();
  });

  it('respects the latent cap, forces the stop there, masks nothing it should not, and leaks nothing', async () => {
    const { state, data, tokenizer } = toyState({ maxLatents: 3 });
    const prompts = data.slice(0, 5).map((ex) => promptIds(tokenizer, ex, 2, state.config.speedPrompt));
    const rows = await expectNoLeak(() =>
      rollout(state, prompts, {
        speed: 2,
        decoding: 'sample',
        temperature: 1,
        topP: 1,
        maxNewTokens: 4,
        rng: new Rng(0),
      }),
    );
    for (const r of rows) {
      expect(r.latents.length).toBeGreaterThanOrEqual(1);
      expect(r.latents.length).toBeLessThanOrEqual(3);
      expect(r.latents.length === 3 || r.stopSampled).toBe(true);
      expect(r.fed).toHaveLength(r.latents.length);
      expect(r.answer.length).toBeLessThanOrEqual(4);
    }
    // fed = z · embedding scale
    expect(rows[0].fed[0][0]).toBeCloseTo(rows[0].latents[0][0] * (await values(state.embStd))[0], 5);
    state.dispose();
  });

  it('decodes a row alone exactly as in a batch of rows that stop at different steps (greedy)', async () => {
    const { state, data, tokenizer } = toyState({ maxLatents: 6 });
    const prompts = data.slice(0, 4).map((ex) => promptIds(tokenizer, ex, 1, state.config.speedPrompt));
    const o = { speed: 1, decoding: 'greedy' as const, temperature: 0, topP: 1, maxNewTokens: 5, rng: new Rng(0) };
    const batch = await rollout(state, prompts, o);
    for (const [i, p] of prompts.entries()) {
      const alone = (await rollout(state, [p], o))[0];
      expect(alone.latents.length).toBe(batch[i].latents.length);
      expect(alone.answer).toEqual(batch[i].answer);
      alone.fed.forEach((v, k) => v.forEach((x, j) => expect(x).toBeCloseTo(batch[i].fed[k][j], 4)));
    }
    state.dispose();
  });

  it('rows that stopped leave the batch without changing any row (sampled, and with zeroed or random latents)', async () => {
    const { state, data, tokenizer } = toyState({ maxLatents: 12, stopTemperature: 4 });
    const prompts = data.slice(0, 8).map((ex) => promptIds(tokenizer, ex, 1, state.config.speedPrompt));
    for (const control of ['none', 'zero', 'random'] as const) {
      // A seed where most rows stop well before the longest one, so the batch shrinks.
      let seed = 0;
      let rows = await rollout(state, prompts, { ...sampled(seed), control });
      const spread = (r: typeof rows) => {
        const n = r.map((x) => x.latents.length).sort((a, b) => a - b);
        return n[n.length - 1] - n[Math.floor(n.length / 2)];
      };
      while (spread(rows) < 3 && seed < 20) rows = await rollout(state, prompts, { ...sampled(++seed), control });
      expect(spread(rows)).toBeGreaterThanOrEqual(3);
      const whole = await rollout(state, prompts, { ...sampled(seed), control, wholeBatch: true });
      expect(rows.map((r) => [r.latents.length, r.stopSampled, r.answer])).toEqual(
        whole.map((r) => [r.latents.length, r.stopSampled, r.answer]),
      );
      rows.forEach((r, b) =>
        r.fed.forEach((v, k) => v.forEach((x, j) => expect(x).toBeCloseTo(whole[b].fed[k][j], 4))),
      );
    }
    await expectNoLeak(() => rollout(state, prompts, sampled(0)));
    state.dispose();
  });

  // ≈ 300 steps from scratch before the stop decision follows the speed (≈ 8 min on a loaded 2-core machine):
  // opt-in with TELEPATH_SLOW_TESTS=1. The default suite checks the chain layout per speed (loss.test.ts).
  it.runIf(process.env.TELEPATH_SLOW_TESTS === '1')(
    'after SFT, a higher speed c gives a shorter chain: 6, 3, 2 latents at c = 1, 2, 4',
    async () => {
      const { state, data } = toyState({ maxCompressionFactor: 4, decoding: 'greedy' }, 0, { width: 32 });
      for (let round = 0; round < 8; round++) {
        await train({
          params: state.trainable('sft'),
          rng: new Rng(3 + round),
          config: { steps: 40, logEvery: 1000, optim: { ...OPTIM, lr: 3e-3, lrMinRatio: 1 } },
          loss: (at) =>
            colar.loss(state, at.rng.shuffle([...data]).slice(0, 8), { step: at.step, phase: 'sft', rng: at.rng }),
        });
      }
      const lengths: number[] = [];
      for (const c of [1, 2, 4]) {
        state.config.compressionFactor = c;
        const gens = await colar.generate(state, data.slice(0, 16), {
          maxNewTokens: 6,
          temperature: 0,
          topP: 1,
          rng: new Rng(1),
        });
        lengths.push(gens.reduce((a, g) => a + g.reasoningLength, 0) / gens.length);
      }
      // The toy chain "a+b=s\n" has 6 tokens: ceil(6 / c) = 6, 3, 2 latents before the closing ###.
      expect(lengths[0]).toBeGreaterThan(lengths[1]);
      expect(lengths[1]).toBeGreaterThan(lengths[2]);
      state.dispose();
    },
    1_800_000,
  );
});
