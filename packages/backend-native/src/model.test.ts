/**
 * The reference decoder (bench/ref-model.ts, a small configuration) on native vs cpu: loss and
 * every parameter gradient, a few Adam steps, and no tensor leaks — with the fused kernels (as
 * core runs on native) and with plain ops only.
 */
import * as tf from '@tensorflow/tfjs';
import { describe, expect, it } from 'vitest';
import { makeRefStep, REF_CONFIG, type RefConfig } from '../bench/ref-model.js';
import { setupNative } from './testing.js';

const setup = await setupNative(tf);
if (!setup.available) console.warn(`[backend-native] skipping native tests: ${setup.reason}`);

const SMALL: RefConfig = { ...REF_CONFIG, vocab: 17, layers: 2, heads: 2, width: 16, positions: 9, batch: 3, seed: 5 };

for (const fused of [true, false]) {
  describe.skipIf(!setup.available)(`reference model on native, ${fused ? 'fused kernels' : 'plain ops'}`, () => {
    const config = { ...SMALL, fused };
    it('loss and all gradients match cpu', async () => {
      const results: Record<string, { loss: number; grads: Map<string, Float32Array> }> = {};
      for (const backend of ['cpu', 'native']) {
        await tf.setBackend(backend);
        const m = makeRefStep(tf, config);
        results[backend] = m.lossAndGrads();
        m.dispose();
      }
      const { cpu, native } = results;
      expect(Math.abs(native.loss - cpu.loss) / cpu.loss).toBeLessThan(1e-5);
      // Per parameter, norm-wise: ‖g_native − g_cpu‖₂ / ‖g_cpu‖₂ (single entries that cancel to
      // near zero carry only rounding noise). The key biases' gradients are exactly zero in exact
      // arithmetic (softmax ignores a per-row constant); both backends give ~1e-12 there, so
      // those are checked against the model's largest gradient instead.
      let globalMax = 0;
      for (const g of cpu.grads.values()) for (const v of g) globalMax = Math.max(globalMax, Math.abs(v));
      for (const [name, g] of cpu.grads) {
        const n = native.grads.get(name)!;
        let diff = 0;
        let norm = 0;
        let maxAbsDiff = 0;
        for (let i = 0; i < g.length; i++) {
          diff += (n[i] - g[i]) ** 2;
          norm += g[i] ** 2;
          maxAbsDiff = Math.max(maxAbsDiff, Math.abs(n[i] - g[i]));
        }
        if (Math.sqrt(norm) > 1e-6 * globalMax) expect(Math.sqrt(diff / norm), name).toBeLessThan(1e-5);
        else expect(maxAbsDiff, name).toBeLessThan(1e-7 * globalMax);
      }
    });

    it('Adam steps track cpu, the loss falls, and the tensor count stays flat', async () => {
      const losses: Record<string, number[]> = {};
      for (const backend of ['cpu', 'native']) {
        await tf.setBackend(backend);
        const m = makeRefStep(tf, config);
        losses[backend] = [m.step(), m.step()];
        const count = tf.memory().numTensors;
        for (let i = 0; i < 8; i++) losses[backend].push(m.step());
        expect(tf.memory().numTensors, `${backend} tensor count`).toBe(count);
        m.dispose();
      }
      losses.native.forEach((l, i) =>
        expect(Math.abs(l - losses.cpu[i]) / losses.cpu[i], `step ${i}`).toBeLessThan(1e-4),
      );
      expect(losses.native[9]).toBeLessThan(losses.native[0]);
    });
  });
}
