/**
 * Training of the sparse-Jacobian autoencoder ("Thought Communication in Multiagent
 * Collaboration", arXiv 2510.20733; docs/method-reference.md §1.5, §1.15) with core's `train()` loop: AdamW,
 * warmup + cosine schedule, gradient clipping (§1.15: "AE training exploded at lr 1e-3 without
 * clipping … fixed with clip 1.0, cosine LR"). Minibatches and sampled Jacobian columns are drawn
 * from the per-step Rng, so a run is reproducible from its seed.
 */
import * as tf from '@tensorflow/tfjs-core';
import { DEFAULT_OPTIM_CONFIG, readScalars, train, type Rng } from '@telepath/core';
import type { AutoencoderConfig } from './config.js';
import { sampleColumns } from './jacobian.js';
import { autoencoderLoss, lambdaAt } from './loss.js';
import { columnStats, createAutoencoder, fitCodeStats, type Autoencoder } from './autoencoder.js';

export interface FitLog {
  step: number;
  loss: number;
  reconstruction: number;
  penalty: number;
  lambda: number;
  ms: number;
}

export interface FitOptions {
  /** Raw states [N, n_h] row-major. */
  h: Float32Array;
  n: number;
  stateDim: number;
  latentDim: number;
  agentRanges: [number, number][];
  config: AutoencoderConfig;
  rng: Rng;
  logEvery?: number;
  onLog?: (l: FitLog) => void;
}

export interface FitResult {
  ae: Autoencoder;
  losses: number[];
  seconds: number;
  final: FitLog;
}

export async function fitAutoencoder(o: FitOptions): Promise<FitResult> {
  const c = o.config;
  const H = o.stateDim;
  const stats = columnStats(o.h, o.n, H);
  const ae = createAutoencoder(c, H, o.latentDim, stats, o.rng.fork('init'));
  const hn = new Float32Array(o.h.length);
  for (let s = 0; s < o.n; s++)
    for (let i = 0; i < H; i++) hn[s * H + i] = (o.h[s * H + i] - stats.mean[i]) / stats.std[i];
  const B = Math.min(c.batch, o.n);
  const logEvery = o.logEvery ?? 100;
  let last: FitLog = { step: 0, loss: NaN, reconstruction: NaN, penalty: NaN, lambda: 0, ms: 0 };
  const parts = { reconstruction: NaN, penalty: NaN };
  // The two terms of the last logged step, kept by the loss and read asynchronously in onLog (no read inside the tape).
  let logged: tf.Scalar[] = [];
  let result: Awaited<ReturnType<typeof train>>;
  try {
    result = await train({
      params: ae.params,
      rng: o.rng.fork('train'),
      config: {
        steps: c.steps,
        logEvery,
        optim: {
          ...DEFAULT_OPTIM_CONFIG,
          lr: c.lr,
          warmupSteps: c.warmupSteps,
          weightDecay: c.weightDecay,
          clipNorm: c.clipNorm,
        },
      },
      loss: ({ step, rng }) => {
        const batch = new Float32Array(B * H);
        for (let r = 0; r < B; r++) {
          const s = rng.int(o.n);
          batch.set(hn.subarray(s * H, (s + 1) * H), r * H);
        }
        const cols =
          c.jacobianColumns > 0 ? sampleColumns(rng.fork('cols'), o.latentDim, c.jacobianColumns) : undefined;
        const lambda = lambdaAt(c, step);
        const out = autoencoderLoss(ae, tf.tensor2d(batch, [B, H]), { lambda, agentRanges: o.agentRanges, cols });
        if ((step + 1) % logEvery === 0 || step + 1 === c.steps) {
          tf.dispose(logged);
          logged = [tf.keep(out.reconstruction), tf.keep(out.penalty)];
        }
        return out.total;
      },
      onLog: async (l) => {
        if (logged.length) {
          [parts.reconstruction, parts.penalty] = await readScalars(logged);
          tf.dispose(logged);
          logged = [];
        }
        last = {
          step: l.step,
          loss: l.loss,
          reconstruction: parts.reconstruction,
          penalty: parts.penalty,
          lambda: lambdaAt(c, l.step - 1),
          ms: l.ms,
        };
        o.onLog?.(last);
      },
    });
  } finally {
    tf.dispose(logged); // empty unless training stopped between a logged loss and its onLog
  }
  tf.tidy(() => fitCodeStats(ae, tf.tensor2d(o.h, [o.n, H])));
  return { ae, losses: result.losses, seconds: result.seconds, final: last };
}
