/**
 * The reference training step of engineering.md §3, written directly on tfjs ops (used until
 * the core LM's bench step can be imported): a GPT-2-style decoder — learned positions,
 * pre-LayerNorm (mean/variance/rsqrt), causal multi-head attention with an additive mask,
 * tanh-GELU MLP, LM head tied to the token embedding — trained with Adam on synthetic
 * arithmetic sequences mod V. Letters: B batch, T tokens, C width, H heads, D head width, V vocab.
 */
import type * as tfc from '@tensorflow/tfjs';

type Tf = typeof tfc;

export interface RefConfig {
  vocab: number;
  layers: number;
  heads: number;
  width: number;
  positions: number;
  batch: number;
  lr: number;
  seed: number;
  /** Use the backend's fused GELU kernel when it has one. */
  fusedGelu: boolean;
}

export const REF_CONFIG: RefConfig = { vocab: 64, layers: 4, heads: 4, width: 128, positions: 64, batch: 32, lr: 1e-3, seed: 1, fusedGelu: false };

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
    const v = rand();
    const r = Math.sqrt(-2 * Math.log(u)) * std;
    out[i] = r * Math.cos(2 * Math.PI * v);
    if (i + 1 < n) out[i + 1] = r * Math.sin(2 * Math.PI * v);
  }
  return out;
}

export interface RefStep {
  /** One Adam step on a fresh batch; returns the loss. */
  step(): number;
  /** Loss and gradients without updating (for correctness checks). */
  lossAndGrads(): { loss: number; grads: Map<string, Float32Array> };
  params: Map<string, tfc.Variable>;
  dispose(): void;
}

export function makeRefStep(tf: Tf, c: RefConfig = REF_CONFIG): RefStep {
  const { vocab: V, layers: L, heads: H, width: C, positions: T, batch: B } = c;
  const D = C / H;
  const rand = seeded(c.seed);
  const params = new Map<string, tfc.Variable>();
  const add = (name: string, shape: number[], init: 'normal' | 'zeros' | 'ones', std = 0.02) => {
    const n = shape.reduce((a, b) => a * b, 1);
    const v = init === 'normal' ? normals(rand, n, std) : new Float32Array(n).fill(init === 'ones' ? 1 : 0);
    params.set(name, tf.variable(tf.tensor(v, shape), true, `ref.${name}.${c.seed}.${Math.floor(rand() * 1e9)}`));
  };
  add('wte', [V, C], 'normal');
  add('wpe', [T, C], 'normal');
  for (let l = 0; l < L; l++) {
    add(`h${l}.ln1.g`, [C], 'ones');
    add(`h${l}.ln1.b`, [C], 'zeros');
    for (const w of ['q', 'k', 'v']) {
      add(`h${l}.w${w}`, [C, C], 'normal');
      add(`h${l}.b${w}`, [C], 'zeros');
    }
    add(`h${l}.wo`, [C, C], 'normal', 0.02 / Math.sqrt(2 * L));
    add(`h${l}.bo`, [C], 'zeros');
    add(`h${l}.ln2.g`, [C], 'ones');
    add(`h${l}.ln2.b`, [C], 'zeros');
    add(`h${l}.wfc`, [C, 4 * C], 'normal');
    add(`h${l}.bfc`, [4 * C], 'zeros');
    add(`h${l}.wproj`, [4 * C, C], 'normal', 0.02 / Math.sqrt(2 * L));
    add(`h${l}.bproj`, [C], 'zeros');
  }
  add('lnf.g', [C], 'ones');
  add('lnf.b', [C], 'zeros');
  const p = (name: string) => params.get(name)!;

  const causal = new Float32Array(T * T);
  for (let i = 0; i < T; i++) for (let j = i + 1; j < T; j++) causal[i * T + j] = -1e9;
  const mask = tf.tensor(causal, [1, 1, T, T]); // [1, 1, T, T]
  const positions = tf.range(0, T, 1, 'int32'); // [T]
  const fusedGelu = c.fusedGelu && tf.getKernel('TelepathGeluTanh', tf.getBackend()) !== undefined;

  const layerNorm = (x: tfc.Tensor, g: tfc.Tensor, b: tfc.Tensor) => {
    const { mean, variance } = tf.moments(x, -1, true); // [B, T, 1]
    return tf.add(tf.mul(tf.mul(tf.sub(x, mean), tf.rsqrt(tf.add(variance, 1e-5))), g), b);
  };
  const gelu = (x: tfc.Tensor) => {
    if (fusedGelu) return tf.engine().runKernel('TelepathGeluTanh', { x }) as tfc.Tensor;
    const inner = tf.mul(tf.add(x, tf.mul(tf.mul(tf.mul(x, x), x), 0.044715)), Math.sqrt(2 / Math.PI));
    return tf.mul(tf.mul(x, 0.5), tf.add(tf.tanh(inner), 1));
  };
  const linear = (x: tfc.Tensor, w: tfc.Tensor, b: tfc.Tensor) => tf.add(tf.matMul(x.reshape([-1, x.shape[x.rank - 1]]) as tfc.Tensor2D, w as tfc.Tensor2D), b);

  const loss = (ids: tfc.Tensor2D, targets: tfc.Tensor2D): tfc.Scalar => {
    let x = tf.add(tf.gather(p('wte'), ids), tf.gather(p('wpe'), positions)); // [B, T, C]
    for (let l = 0; l < L; l++) {
      const h = layerNorm(x, p(`h${l}.ln1.g`), p(`h${l}.ln1.b`)).reshape([B * T, C]);
      const split = (t: tfc.Tensor) => t.reshape([B, T, H, D]).transpose([0, 2, 1, 3]); // [B, H, T, D]
      const q = split(linear(h, p(`h${l}.wq`), p(`h${l}.bq`)));
      const k = split(linear(h, p(`h${l}.wk`), p(`h${l}.bk`)));
      const v = split(linear(h, p(`h${l}.wv`), p(`h${l}.bv`)));
      const att = tf.softmax(tf.add(tf.mul(tf.matMul(q as tfc.Tensor4D, k as tfc.Tensor4D, false, true), 1 / Math.sqrt(D)), mask)); // [B, H, T, T]
      const y = tf.matMul(att, v as tfc.Tensor4D).transpose([0, 2, 1, 3]).reshape([B * T, C]);
      x = tf.add(x, linear(y, p(`h${l}.wo`), p(`h${l}.bo`)).reshape([B, T, C]));
      const m = layerNorm(x, p(`h${l}.ln2.g`), p(`h${l}.ln2.b`)).reshape([B * T, C]);
      x = tf.add(x, linear(gelu(linear(m, p(`h${l}.wfc`), p(`h${l}.bfc`))), p(`h${l}.wproj`), p(`h${l}.bproj`)).reshape([B, T, C]));
    }
    const f = layerNorm(x, p('lnf.g'), p('lnf.b')).reshape([B * T, C]);
    const logits = tf.matMul(f as tfc.Tensor2D, p('wte') as tfc.Tensor2D, false, true); // [B·T, V]
    const lse = tf.logSumExp(logits, -1); // [B·T]
    const picked = tf.sum(tf.mul(logits, tf.oneHot(targets.reshape([B * T]), V)), -1); // [B·T]
    return tf.mean(tf.sub(lse, picked)) as tfc.Scalar;
  };

  const data = seeded(c.seed + 1000);
  const batch = () => {
    const ids = new Int32Array(B * T);
    const tgt = new Int32Array(B * T);
    for (let b = 0; b < B; b++) {
      const a0 = Math.floor(data() * V);
      const d = 1 + Math.floor(data() * 7);
      for (let t = 0; t < T; t++) {
        ids[b * T + t] = (a0 + d * t) % V;
        tgt[b * T + t] = (a0 + d * (t + 1)) % V;
      }
    }
    return { ids: tf.tensor2d(ids, [B, T], 'int32'), targets: tf.tensor2d(tgt, [B, T], 'int32') };
  };

  const optimizer = tf.train.adam(c.lr, 0.9, 0.999, 1e-8);
  const vars = [...params.values()];
  return {
    params,
    step() {
      const { ids, targets } = batch();
      const l = optimizer.minimize(() => loss(ids, targets), true, vars) as tfc.Scalar;
      const value = l.dataSync()[0];
      tf.dispose([l, ids, targets]);
      return value;
    },
    lossAndGrads() {
      const { ids, targets } = batch();
      const { value, grads } = tf.variableGrads(() => loss(ids, targets), vars);
      const out = new Map<string, Float32Array>();
      for (const [name, v] of params) out.set(name, grads[v.name].dataSync() as Float32Array);
      const lv = value.dataSync()[0];
      tf.dispose([value, ids, targets, ...Object.values(grads)]);
      return { loss: lv, grads: out };
    },
    dispose() {
      optimizer.dispose();
      tf.dispose([mask, positions, ...vars]);
    },
  };
}
