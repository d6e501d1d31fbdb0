import * as tf from '@tensorflow/tfjs-core';
import { initBackend, Rng, type LatentControl } from '@telepath/core';
import { expectClose, expectNoLeak } from '@telepath/core/testing';
import { beforeAll, describe, expect, it } from 'vitest';
import { disposeRun, runLatents, traceLatents } from './generate.js';
import { softEmbedding } from './method.js';
import { toyState } from './testing.js';

beforeAll(async () => {
  await initBackend('cpu', { quiet: true });
});

const gen = (control: LatentControl) => ({ maxNewTokens: 6, temperature: 0, topP: 1, rng: new Rng(0), control });
const norms = (z: number[][][]) => z.map((row) => row.map((v) => Math.hypot(...v)));

/** The latents before and after a control, through the generation path. */
function latentsUnder(variant: 'soft-tokens' | 'continuous-thought', control: LatentControl) {
  const { data, state } = toyState({ variant, latentTokens: 3 });
  const run = runLatents(state, data.slice(0, 4), control, new Rng(7));
  const out = { latents: run.latents.arraySync() as number[][][], fed: run.fed.arraySync() as number[][][] };
  disposeRun(run);
  state.dispose();
  return out;
}

describe.each(['soft-tokens', 'continuous-thought'] as const)('%s generation and controls', (variant) => {
  it('reports N_L latents and returns one answer per example, in order, without leaks', async () => {
    const { data, state } = toyState({ variant, latentTokens: 3 });
    const gens = await expectNoLeak(() => softEmbedding.generate(state, data.slice(0, 5), gen('none')));
    expect(gens.map((g) => g.id)).toEqual(data.slice(0, 5).map((e) => e.id));
    expect(gens.every((g) => g.reasoningKind === 'latents' && g.reasoningLength === 3)).toBe(true);
    for (const c of ['zero', 'shuffle', 'random'] as const)
      await expectNoLeak(() => softEmbedding.generate(state, data.slice(0, 5), gen(c)));
    state.dispose();
  });

  it("decodes a curriculum stage with that stage's thoughts (soft tokens: always N_L)", async () => {
    const { data, state } = toyState({ variant, latentTokens: 3 });
    const lengths = async (phase?: string) =>
      (await expectNoLeak(() => softEmbedding.generate(state, data.slice(0, 4), { ...gen('none'), phase }))).map(
        (g) => g.reasoningLength,
      );
    // c = 1: stage s replaces s lines by s thoughts; stage 4 (past the last latent stage) uses all 3.
    const expected = variant === 'continuous-thought' ? [0, 1, 2, 3, 3] : [3, 3, 3, 3, 3];
    for (const [i, phase] of ['stage0', 'stage1', 'stage2', 'stage3', 'stage4'].entries())
      expect(await lengths(phase)).toEqual(Array(4).fill(expected[i]));
    expect(await lengths()).toEqual([3, 3, 3, 3]);
    state.dispose();
  });

  it('none feeds the latents unchanged; zero feeds zeros', () => {
    const none = latentsUnder(variant, 'none');
    expect(none.fed).toEqual(none.latents);
    const zero = latentsUnder(variant, 'zero');
    expect(zero.fed.flat(2).every((v) => v === 0)).toBe(true);
    expect(zero.latents.flat(2).some((v) => v !== 0)).toBe(true);
  });

  it("random keeps each latent's norm and changes its direction", () => {
    const { latents, fed } = latentsUnder(variant, 'random');
    expectClose(norms(fed).flat(), norms(latents).flat(), { rtol: 1e-4 });
    expect(fed.flat(2)).not.toEqual(latents.flat(2));
  });

  it('the trace holds one [N, C] slot per latent position', async () => {
    const { data, state } = toyState({ variant, latentTokens: 3 });
    const t = await traceLatents(state, data.slice(0, 10), 4);
    expect(t.slots.map((s) => [s.rows, s.width])).toEqual([
      [10, 16],
      [10, 16],
      [10, 16],
    ]);
    expect(t.exampleIds).toEqual(data.slice(0, 10).map((e) => e.id));
    expect(t.slots.every((s) => s.vectors.some((v) => v !== 0))).toBe(true);
    state.dispose();
  });
});

describe('shuffle', () => {
  it("continuous thought: every example receives another example's thoughts", () => {
    const { latents, fed } = latentsUnder('continuous-thought', 'shuffle');
    fed.forEach((f, b) => {
      const src = latents.findIndex((l) => JSON.stringify(l) === JSON.stringify(f));
      expect(src).toBeGreaterThanOrEqual(0);
      expect(src).not.toBe(b);
    });
  });

  it('soft tokens: the same vectors for every example, so shuffling leaves them unchanged', () => {
    const { latents, fed } = latentsUnder('soft-tokens', 'shuffle');
    expect(fed).toEqual(latents);
  });

  it('the method declares vacuous exactly the controls that leave the latents unchanged', () => {
    for (const variant of ['soft-tokens', 'continuous-thought'] as const) {
      const declared = softEmbedding.vacuousControls!({ ...softEmbedding.defaults, variant });
      for (const control of ['zero', 'shuffle', 'random'] as const) {
        const { latents, fed } = latentsUnder(variant, control);
        expect([variant, control, control in declared]).toEqual([
          variant,
          control,
          fed.every((f, b) => JSON.stringify(f) === JSON.stringify(latents[b])),
        ]);
      }
    }
  });

  it('continuous thought under a control decodes from the replaced thoughts', () => {
    const { data, state } = toyState({ variant: 'continuous-thought', latentTokens: 2 });
    const logits = (c: LatentControl) => {
      const run = runLatents(state, data.slice(0, 3), c, new Rng(1));
      const v = run.lastLogits.arraySync() as number[][];
      disposeRun(run);
      return v;
    };
    expect(logits('zero')).not.toEqual(logits('none'));
    state.dispose();
    expect(tf.memory().numTensors).toBe(0);
  });
});
