/**
 * The reference training step (docs/engineering-notes.md §3), op for op as core's TinyLm + train() run it
 * (packages/core/src/tiny-lm.ts, layers.ts, matmul.ts, loss.ts, optim.ts, train.ts; keep in
 * sync): learned positions, pre-LayerNorm via moments, causal attention with an additive
 * [B,1,T,S] bias, GELU as x·sigmoid(2u), separate q/k/v projections with biases, LM head tied to
 * the token embedding (explicit transpose), masked next-token cross-entropy, global-norm
 * clipping (1.0) and AdamW (weight decay 0.01 on non-embedding matrices). Like core, it runs
 * GELU, LayerNorm, the attention softmax and the AdamW update as this backend's fused kernels
 * where the running backend has them (core's fused.ts: kernel by name, else plain ops);
 * `fused: false` keeps the plain-op sequence (core with TELEPATH_FUSED=0, and core before the
 * fused kernels were wired in). Data: progressions s + d·t mod V.
 * Letters: B batch, T tokens, C width, H heads, D head width, V vocab, L layers.
 */
import type * as tfc from '@tensorflow/tfjs';
import { FUSED_KERNELS } from '../src/index.js';

type Tf = typeof tfc;
type Tensor = tfc.Tensor;

export interface RefConfig {
  vocab: number;
  layers: number;
  heads: number;
  width: number;
  positions: number;
  /** Rows of the learned position table (default: `positions`; GPT-2: 1,024 rows, trained at T = 256). */
  table?: number;
  batch: number;
  lr: number;
  weightDecay: number;
  clipNorm: number;
  seed: number;
  /** Fused kernels where the backend has them, as core runs (default); false: plain ops only. */
  fused: boolean;
}

export const REF_CONFIG: RefConfig = {
  vocab: 64,
  layers: 4,
  heads: 4,
  width: 128,
  positions: 64,
  batch: 32,
  lr: 1e-3,
  weightDecay: 0.01,
  clipNorm: 1,
  seed: 1,
  fused: true,
};
/** GPT-2 small's shape (Radford et al. 2019, §2.3 and Table 2's smallest row: 12 layers, width 768, 50,257 tokens, 1,024 positions; 12 heads as in the released config.json), trained here at T = 256. */
export const GPT2_SHAPE: RefConfig = {
  ...REF_CONFIG,
  vocab: 50257,
  layers: 12,
  heads: 12,
  width: 768,
  positions: 256,
  table: 1024,
  batch: 4,
};

/** Small seeded generator (mulberry32) for weights and data. */
export function seeded(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function normals(rand: () => number, n: number, std: number): Float32Array {
  const out = new Float32Array(n);
  for (let i = 0; i < n; i += 2) {
    const u = Math.max(rand(), 1e-12);
    const r = Math.sqrt(-2 * Math.log(u)) * std;
    const a = 2 * Math.PI * rand();
    out[i] = r * Math.cos(a);
    if (i + 1 < n) out[i + 1] = r * Math.sin(a);
  }
  return out;
}

export interface RefStep {
  /** One training step on a fresh batch (forward, backward, clip, AdamW); returns the loss. */
  step(): number;
  /** Loss and gradients without updating (for correctness checks). */
  lossAndGrads(): { loss: number; grads: Map<string, Float32Array> };
  params: Map<string, tfc.Variable>;
  dispose(): void;
}

let instance = 0;

export function makeRefStep(tf: Tf, c: RefConfig = REF_CONFIG): RefStep {
  const { vocab: V, layers: L, heads: H, width: C, positions: T, batch: B } = c;
  const D = C / H;
  const rand = seeded(c.seed);
  const tag = instance++;
  const params = new Map<string, tfc.Variable>();
  const add = (name: string, shape: number[], init: 'normal' | 'residual' | 'zeros' | 'ones') => {
    const n = shape.reduce((a, b) => a * b, 1);
    const v =
      init === 'zeros' || init === 'ones'
        ? new Float32Array(n).fill(init === 'ones' ? 1 : 0)
        : normals(rand, n, init === 'residual' ? 0.02 / Math.sqrt(2 * L) : 0.02);
    params.set(name, tf.variable(tf.tensor(v, shape), true, `ref${tag}.${name}`));
  };
  add('wte', [V, C], 'normal');
  add('wpe', [c.table ?? T, C], 'normal');
  for (let l = 0; l < L; l++) {
    add(`h${l}.ln1.g`, [C], 'ones');
    add(`h${l}.ln1.b`, [C], 'zeros');
    for (const w of ['q', 'k', 'v']) {
      add(`h${l}.w${w}`, [C, C], 'normal');
      add(`h${l}.b${w}`, [C], 'zeros');
    }
    add(`h${l}.wo`, [C, C], 'residual');
    add(`h${l}.bo`, [C], 'zeros');
    add(`h${l}.ln2.g`, [C], 'ones');
    add(`h${l}.ln2.b`, [C], 'zeros');
    add(`h${l}.wfc`, [C, 4 * C], 'normal');
    add(`h${l}.bfc`, [4 * C], 'zeros');
    add(`h${l}.wproj`, [4 * C, C], 'residual');
    add(`h${l}.bproj`, [C], 'zeros');
  }
  add('lnf.g', [C], 'ones');
  add('lnf.b', [C], 'zeros');
  const p = (name: string) => params.get(name)!;
  // As core's fused.ts: a fused kernel runs when the backend registers it (and its gradient).
  const fusedHere = (kernel: string, grad = true) =>
    c.fused && tf.getKernel(kernel, tf.getBackend()) !== undefined && (!grad || tf.getGradient(kernel) !== undefined);
  const run = (kernel: string, inputs: tfc.NamedTensorMap, attrs: Record<string, number> = {}) =>
    tf.engine().runKernel(kernel, inputs, attrs);
  const causal = new Float32Array(T * T);
  for (let t = 0; t < T; t++) for (let s = 0; s <= t; s++) causal[t * T + s] = 1;

  const layerNorm = (x: Tensor, g: Tensor, b: Tensor) => {
    if (fusedHere(FUSED_KERNELS.layerNorm))
      return (run(FUSED_KERNELS.layerNorm, { x, gamma: g, beta: b }, { eps: 1e-5 }) as Tensor[])[0];
    const { mean, variance } = tf.moments(x, -1, true); // [..., 1]
    return tf.add(tf.mul(tf.mul(tf.sub(x, mean), tf.rsqrt(tf.add(variance, 1e-5))), g), b);
  };
  const gelu = (x: Tensor) =>
    fusedHere(FUSED_KERNELS.geluTanh)
      ? (run(FUSED_KERNELS.geluTanh, { x }) as Tensor)
      : tf.mul(x, tf.sigmoid(tf.mul(tf.add(x, tf.mul(tf.mul(tf.mul(x, x), x), 0.044715)), 2 * Math.sqrt(2 / Math.PI))));
  // y + b whose bias gradient is ones[1, N]·dy (core's addBias).
  const addBias = tf.customGrad(((y: Tensor, b: Tensor) => ({
    value: tf.add(y, b),
    gradFunc: (dy: Tensor | Tensor[]) => [
      dy as Tensor,
      tf.reshape(tf.matMul(tf.ones([1, (dy as Tensor).shape[0]]), dy as tfc.Tensor2D), b.shape),
    ],
  })) as unknown as Parameters<Tf['customGrad']>[0]) as unknown as (y: Tensor, b: Tensor) => Tensor;
  const linear = (x: Tensor, w: Tensor, b: Tensor) => {
    const k = x.shape[x.rank - 1];
    const y = addBias(tf.matMul(tf.reshape(x, [-1, k]) as tfc.Tensor2D, w as tfc.Tensor2D), b);
    return tf.reshape(y, [...x.shape.slice(0, -1), w.shape[1]!]);
  };

  const forwardLoss = (rows: number[][]): tfc.Scalar =>
    tf.tidy(() => {
      const ids = tf.tensor2d(rows, [B, T + 1], 'int32');
      const xIds = tf.slice(ids, [0, 0], [B, T]) as tfc.Tensor2D;
      const yIds = tf.slice(ids, [0, 1], [B, T]) as tfc.Tensor2D;
      const maxId = tf.max(xIds).dataSync()[0]; // core's embed checks the id range
      const minId = tf.min(xIds).dataSync()[0];
      if (minId < 0 || maxId >= V) throw new Error('token id out of range');
      const pos = tf.tile(tf.reshape(tf.range(0, T, 1, 'int32'), [1, T]), [B, 1]);
      let x = tf.add(tf.gather(p('wte'), xIds), tf.gather(p('wpe'), pos)); // [B, T, C]
      const keyMask = tf.ones([B, T]).clone(); // [B, S]
      const allowed = tf.mul(tf.tensor(causal, [1, 1, T, T]), tf.reshape(keyMask, [B, 1, 1, T]));
      const bias = tf.mul(tf.sub(1, allowed), -1e9); // [B, 1, T, S]
      const split = (t: Tensor) => tf.transpose(tf.reshape(t, [B, T, H, D]), [0, 2, 1, 3]); // [B, H, T, D]
      for (let l = 0; l < L; l++) {
        const h = layerNorm(x, p(`h${l}.ln1.g`), p(`h${l}.ln1.b`));
        const q = split(linear(h, p(`h${l}.wq`), p(`h${l}.bq`)));
        const k = split(linear(h, p(`h${l}.wk`), p(`h${l}.bk`)));
        const v = split(linear(h, p(`h${l}.wv`), p(`h${l}.bv`)));
        const qk = tf.matMul(q as tfc.Tensor4D, k as tfc.Tensor4D, false, true); // [B, H, T, S]
        const probs = fusedHere(FUSED_KERNELS.scaledMaskedSoftmax)
          ? (run(FUSED_KERNELS.scaledMaskedSoftmax, { x: qk, bias }, { scale: 1 / Math.sqrt(D) }) as Tensor)
          : tf.softmax(tf.add(tf.mul(qk, 1 / Math.sqrt(D)), bias));
        const y = tf.reshape(tf.transpose(tf.matMul(probs as tfc.Tensor4D, v as tfc.Tensor4D), [0, 2, 1, 3]), [
          B,
          T,
          C,
        ]);
        x = tf.add(x, linear(y, p(`h${l}.wo`), p(`h${l}.bo`)));
        const m = layerNorm(x, p(`h${l}.ln2.g`), p(`h${l}.ln2.b`));
        x = tf.add(x, linear(gelu(linear(m, p(`h${l}.wfc`), p(`h${l}.bfc`))), p(`h${l}.wproj`), p(`h${l}.bproj`)));
      }
      const f = tf.reshape(layerNorm(x, p('lnf.g'), p('lnf.b')), [B * T, C]) as tfc.Tensor2D;
      const logits = tf.matMul(f, tf.transpose(p('wte')) as tfc.Tensor2D); // [B·T, V]
      const lse = tf.logSumExp(logits, -1); // [B·T]
      const picked = tf.sum(tf.mul(logits, tf.oneHot(tf.reshape(yIds, [B * T]) as tfc.Tensor1D, V)), -1);
      const mask = tf.reshape(tf.cast(tf.onesLike(yIds), 'float32'), [B * T]);
      return tf.div(tf.sum(tf.mul(tf.sub(lse, picked), mask)), tf.maximum(tf.sum(mask), 1)) as tfc.Scalar;
    });

  const data = seeded(c.seed + 1000);
  const batch = () =>
    Array.from({ length: B }, () => {
      const s = Math.floor(data() * V);
      const d = 1 + Math.floor(data() * 5);
      return Array.from({ length: T + 1 }, (_, t) => (s + d * t) % V);
    });

  const vars = [...params.values()];
  const names = new Map(vars.map((v) => [v.name, [...params.entries()].find(([, w]) => w === v)![0]]));
  const moments = new Map(
    vars.map((v) => [v.name, { m: tf.variable(tf.zerosLike(v), false), v: tf.variable(tf.zerosLike(v), false) }]),
  );
  const decays = (name: string, v: Tensor) => v.rank >= 2 && name !== 'wte' && name !== 'wpe';
  let t = 0;
  const applyAdamW = (grads: Map<string, Tensor>) => {
    t += 1;
    const [b1, b2, eps] = [0.9, 0.999, 1e-8];
    tf.tidy(() => {
      for (const v of vars) {
        const g = grads.get(v.name)!;
        const s = moments.get(v.name)!;
        const wd = decays(names.get(v.name)!, v) ? c.weightDecay : 0;
        if (fusedHere(FUSED_KERNELS.adamW, false)) {
          const attrs = { lr: c.lr, beta1: b1, beta2: b2, eps, weightDecay: wd, c1: 1 - b1 ** t, c2: 1 - b2 ** t };
          const [p1, m1, v1] = run(FUSED_KERNELS.adamW, { param: v, m: s.m, v: s.v, grad: g }, attrs) as Tensor[];
          s.m.assign(m1);
          s.v.assign(v1);
          v.assign(p1);
          continue;
        }
        const m1 = tf.add(tf.mul(s.m, b1), tf.mul(g, 1 - b1));
        const v1 = tf.add(tf.mul(s.v, b2), tf.mul(tf.mul(g, g), 1 - b2));
        s.m.assign(m1);
        s.v.assign(v1);
        let update = tf.div(tf.div(m1, 1 - b1 ** t), tf.add(tf.sqrt(tf.div(v1, 1 - b2 ** t)), eps));
        if (wd > 0) update = tf.add(update, tf.mul(v, wd));
        v.assign(tf.sub(v, tf.mul(update, c.lr)));
      }
    });
  };

  return {
    params,
    step() {
      const rows = batch();
      const { value, grads } = tf.variableGrads(() => forwardLoss(rows), vars);
      const loss = value.dataSync()[0];
      const gs = new Map(Object.entries(grads));
      const norm = tf.tidy(() => tf.sqrt(tf.addN([...gs.values()].map((g) => tf.sum(tf.mul(g, g))))).dataSync()[0]);
      const clipped =
        norm > c.clipNorm ? new Map([...gs].map(([k, g]) => [k, tf.mul(g, c.clipNorm / (norm + 1e-6))])) : gs;
      applyAdamW(clipped);
      tf.dispose([value, ...gs.values(), ...(clipped === gs ? [] : clipped.values())]);
      return loss;
    },
    lossAndGrads() {
      const { value, grads } = tf.variableGrads(() => forwardLoss(batch()), vars);
      const out = new Map<string, Float32Array>();
      for (const [name, v] of params) out.set(name, grads[v.name].dataSync() as Float32Array);
      const loss = value.dataSync()[0];
      tf.dispose([value, ...Object.values(grads)]);
      return { loss, grads: out };
    },
    dispose() {
      tf.dispose([...vars, ...[...moments.values()].flatMap((s) => [s.m, s.v])]);
    },
  };
}
