/**
 * The core's model, cache, gradients, training and generation on the `webgpu` backend, each
 * compared with cpu (the oracle) within 1e-4, with no leaked tensors. On a machine without a GPU
 * they run on lavapipe (scripts/setup-lavapipe.sh); where no Vulkan driver Dawn accepts is
 * present they say why and skip. Reads are asynchronous: webgpu cannot read synchronously.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as tf from '@tensorflow/tfjs-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { initBackend } from './backend.js';
import { readCheckpoint } from './checkpoint.js';
import { generate } from './generate.js';
import { maskedCrossEntropy } from './loss.js';
import { DEFAULT_OPTIM_CONFIG } from './optim.js';
import { Rng } from './rng.js';
import { installSizeGuards, sizeGuardLimit } from './size-guard.js';
import { expectClose, onCpuAndWebgpu, relativeError, tinyLm, values, webgpuSkipReason } from './testing.js';
import { POSITION_KINDS, type TinyLm } from './tiny-lm.js';
import { train } from './train.js';

const TOL = { rtol: 1e-4, atol: 1e-4 };
let skipReason: string | null = null;

beforeAll(async () => {
  skipReason = await webgpuSkipReason('webgpu tests');
});

const ids = (rows: number[][]) => tf.tensor2d(rows, [rows.length, rows[0].length], 'int32');

describe('on webgpu (against cpu)', () => {
  for (const positions of POSITION_KINDS) {
    it(`${positions} positions: forward logits and hidden states; cached step-by-step decoding equals the full forward`, async (ctx) => {
      if (skipReason) return ctx.skip();
      const seq = [
        [3, 1, 4, 1, 5, 9, 2],
        [2, 7, 1, 8, 2, 8, 1],
      ];
      const { cpu, gpu } = await onCpuAndWebgpu(async () => {
        const lm = tinyLm({ positions, initStd: 0.5 });
        const read = tf.tidy(() => {
          const full = lm.forward(lm.embed(ids(seq)));
          let cache = lm.forward(lm.embed(ids(seq.map((r) => r.slice(0, 4))))).cache;
          const last: tf.Tensor[] = [];
          for (let t = 4; t < 7; t++) {
            const out = lm.forward(lm.embed(ids(seq.map((r) => [r[t]]))), { cache });
            cache = out.cache;
            last.push(out.logits);
          }
          return [
            full.logits,
            full.hidden[full.hidden.length - 1],
            tf.concat(last, 1),
            tf.slice(full.logits, [0, 4, 0], [-1, 3, -1]),
          ];
        });
        const [logits, hidden, stepped, tail] = await Promise.all(read.map(values));
        tf.dispose(read);
        lm.dispose();
        const r = { logits, hidden, stepped, tail };
        return r;
      });
      expectClose(gpu.logits, cpu.logits, TOL);
      expectClose(gpu.hidden, cpu.hidden, TOL);
      expectClose(gpu.stepped, gpu.tail, TOL);
    });
  }

  it('gradients of the masked cross-entropy for every parameter (relative L2 error ≤ 1e-4)', async (ctx) => {
    if (skipReason) return ctx.skip();
    const { cpu, gpu } = await onCpuAndWebgpu(async () => {
      const lm = tinyLm({ initStd: 0.5 });
      const { value, grads } = tf.variableGrads(() =>
        tf.tidy(() =>
          maskedCrossEntropy(
            lm.forward(
              lm.embed(
                ids([
                  [1, 2, 3, 4],
                  [5, 6, 7, 8],
                ]),
              ),
            ).logits,
            ids([
              [2, 3, 4, 5],
              [6, 7, 8, 9],
            ]),
            tf.tensor2d([
              [1, 1, 1, 0],
              [1, 1, 1, 1],
            ]),
          ),
        ),
      );
      const out: Record<string, number[]> = { loss: await values(value) };
      for (const [name, v] of lm.params) out[name] = await values(grads[v.name]);
      tf.dispose([value, ...Object.values(grads)]);
      lm.dispose();
      return out;
    });
    expect(Object.keys(gpu)).toHaveLength(Object.keys(cpu).length);
    for (const name of Object.keys(cpu)) {
      // Key biases get an exactly zero gradient in exact arithmetic (softmax is shift-invariant):
      // both backends give rounding noise there, compared in absolute terms.
      if (Math.hypot(...cpu[name]) < 1e-5) expectClose(gpu[name], cpu[name], { rtol: 0, atol: 1e-6 });
      else expect(relativeError(gpu[name], cpu[name], 'l2'), name).toBeLessThan(1e-4);
    }
  });

  it('10 AdamW steps with clipping follow the cpu losses and weights, checkpointing on the way; the tensor count stays flat', async (ctx) => {
    if (skipReason) return ctx.skip();
    const dir = mkdtempSync(join(tmpdir(), 'webgpu-train-'));
    const { cpu, gpu } = await onCpuAndWebgpu(async (backend) => {
      const lm = tinyLm({ width: 16 });
      const counts: number[] = [];
      const res = await train({
        params: lm.params,
        rng: new Rng(4),
        checkpointPath: join(dir, `${backend}.ckpt`),
        config: {
          steps: 10,
          logEvery: 1,
          checkpointEvery: 5,
          optim: { ...DEFAULT_OPTIM_CONFIG, lr: 1e-2, warmupSteps: 2, clipNorm: 0.5 },
        },
        loss: ({ rng }) =>
          tf.tidy(() => {
            const rows = Array.from({ length: 4 }, () => Array.from({ length: 9 }, () => rng.int(16)));
            return maskedCrossEntropy(
              lm.forward(lm.embed(ids(rows.map((r) => r.slice(0, 8))))).logits,
              ids(rows.map((r) => r.slice(1))),
              tf.ones([4, 8]) as tf.Tensor2D,
            );
          }),
        onLog: () => counts.push(tf.memory().numTensors),
      });
      const weights = await values(lm.params.get('h1.mlp.wfc')!);
      lm.dispose();
      const saved = (await readCheckpoint(join(dir, `${backend}.ckpt`))).tensors.get('param/h1.mlp.wfc')!.values;
      return { losses: res.losses, weights, saved: Array.from(saved), counts };
    });
    expectClose(gpu.losses, cpu.losses, TOL);
    expectClose(gpu.weights, cpu.weights, TOL);
    expect(gpu.saved).toEqual(gpu.weights);
    expect(new Set(gpu.counts).size).toBe(1);
  });

  it('greedy generation of a left-padded batch and seeded sampling give the cpu tokens', async (ctx) => {
    if (skipReason) return ctx.skip();
    const { cpu, gpu } = await onCpuAndWebgpu(async () => {
      const lm: TinyLm = tinyLm({ initStd: 0.5 });
      const greedy = await generate(
        lm,
        [
          [3, 4, 5, 6],
          [7, 8],
        ],
        { maxNewTokens: 6, padId: 0, stopTokens: [15] },
      );
      const sampled = await generate(lm, [[3, 4]], {
        maxNewTokens: 6,
        padId: 0,
        temperature: 1,
        topP: 0.9,
        rng: new Rng(1),
      });
      lm.dispose();
      return { greedy, sampled };
    });
    expect(gpu.greedy).toEqual(cpu.greedy);
    expect(gpu.sampled).toEqual(cpu.sampled);
  });

  it('embeds GPU-resident ids like host ones; an out-of-range GPU-resident id gives NaN rows, not a clamped row', async (ctx) => {
    if (skipReason) return ctx.skip();
    await initBackend('webgpu', { quiet: true });
    const lm = tinyLm();
    const before = tf.memory().numTensors;
    const host = ids([[1, 2, 15]]);
    // A matMul result lives on the GPU: embed cannot check its ids without a synchronous read.
    const onGpu = (rows: number[][]) =>
      tf.tidy(() => tf.cast(tf.matMul(tf.tensor2d(rows), tf.eye(rows[0].length)), 'int32') as tf.Tensor2D);
    const good = onGpu([[1, 2, 15]]);
    const bad = onGpu([[1, 99, 15]]);
    const [a, b, c] = [lm.embed(host), lm.embed(good), lm.embed(bad)];
    expect(await values(b)).toEqual(await values(a));
    const badRows = await values(c); // [1, 3, 8]
    expect(badRows.slice(8, 16).every(Number.isNaN)).toBe(true);
    expect(badRows.slice(0, 8)).toEqual((await values(a)).slice(0, 8));
    const hostBad = ids([[99]]);
    expect(() => lm.embed(hostBad)).toThrow(/token id 99 outside \[0, 16\)/); // host ids: checked exactly
    tf.dispose([host, good, bad, a, b, c, hostBad]);
    expect(tf.memory().numTensors).toBe(before);
    lm.dispose();
  });

  it('adds more tensors than a shader may bind (AddN in chunks): the sum equals cpu', async (ctx) => {
    if (skipReason) return ctx.skip();
    const { cpu, gpu } = await onCpuAndWebgpu(async () => {
      const terms = Array.from({ length: 37 }, (_, i) => tf.fill([3], i + 0.5));
      const sum = tf.addN(terms);
      const r = await values(sum);
      tf.dispose([...terms, sum]);
      return r;
    });
    expect(gpu).toEqual(cpu);
  });

  it('refuses a tensor above the binding limit, naming the kernel and the tensor, and leaks nothing', async (ctx) => {
    if (skipReason) return ctx.skip();
    await initBackend('webgpu', { quiet: true });
    const limit = sizeGuardLimit('webgpu')!;
    expect(limit).toBeGreaterThan(0);
    const before = tf.memory().numTensors;
    // An input above the adapter's real limit is refused before any GPU work.
    const big = tf.zeros([limit / 4 + 1]);
    expect(() => tf.add(big, 1)).toThrow(
      /webgpu: Add input "a" of shape \[\d+\] \(float32\) needs \d+ bytes .* above this adapter's maxStorageBufferBindingSize/,
    );
    big.dispose();
    // An output above a (lowered) limit is freed and refused.
    installSizeGuards('webgpu', 4096);
    try {
      const a = tf.ones([32, 8]);
      const b = tf.ones([8, 64]);
      expect(() => tf.matMul(a, b)).toThrow(/BatchMatMul output of shape \[(1,)?32,64\] \(float32\) needs 8192 bytes/);
      tf.dispose([a, b]);
    } finally {
      installSizeGuards('webgpu', limit);
    }
    expect(tf.memory().numTensors).toBe(before);
  });
});
