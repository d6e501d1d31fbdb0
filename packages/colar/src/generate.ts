/**
 * CoLaR inference at speed c (arXiv 2505.16552; stopping as in the released code, docs/method-reference.md
 * §5): the prompt ends with "Thinking speed: c" and the opening ###; then, per latent step, a
 * latent is sampled from the head, multiplied by the embedding scale and fed back as the next
 * input embedding, and one token is sampled from the LM head — when it is ### the row is done
 * (rows that are done keep their cache positions masked). A cap (maxLatents, and the context
 * length) forces the stop. Then embed(###) is fed and the answer decoded with core's `decode`.
 * Reasoning length = latents fed, including the one after which ### was sampled.
 * Each latent step reads back one packed tensor asynchronously (the latents, the fed vectors and
 * the stop inputs: whether to go on depends on it); nothing is read synchronously (webgpu).
 * Letters: B rows, C width, V vocab.
 */
import * as tf from '@tensorflow/tfjs-core';
import { applyLatentControl, decode, disposeCache, prefill, tidy, type LatentControl, type Rng } from '@telepath/core';
import { headForward, sampleLatent } from './latent-head.js';
import { embedIds, feed, type Step } from './model.js';
import type { RolloutRow } from './layout.js';
import type { ColarState } from './state.js';

export interface RolloutOptions {
  /** Latents: head mean and argmax stop token ('greedy'), or samples ('sample'). */
  decoding: 'sample' | 'greedy';
  /** Answer decoding after the closing ###. */
  temperature: number;
  topP: number;
  maxNewTokens: number;
  rng: Rng;
  control?: LatentControl;
}

/**
 * Decode every prompt (ids up to and including the opening ###) at the state's config: latents
 * until ### (or the cap), then the answer. Owns and frees every tensor it makes.
 */
export async function rollout(s: ColarState, prompts: number[][], o: RolloutOptions): Promise<RolloutRow[]> {
  const cfg = s.config;
  const tok = s.tokenizer;
  const B = prompts.length;
  const longest = Math.max(...prompts.map((p) => p.length));
  const room = s.lm.config.contextLength - longest - 1 - o.maxNewTokens; // the closing ### and the answer must fit
  const cap = Math.max(1, Math.min(cfg.maxLatents, room));
  const greedy = o.decoding === 'greedy';
  const stopTemperature = greedy ? 0 : cfg.stopTemperature;
  const rows: RolloutRow[] = prompts.map((prompt) => ({
    prompt,
    fed: [],
    latents: [],
    stopSampled: false,
    answer: [],
  }));
  const live = new Array<boolean>(B).fill(true);
  // Prefill all but the opening ###, then feed ### to get the hidden state the first latent comes from.
  const pre = prefill(
    s.lm,
    prompts.map((p) => p.slice(0, -1)),
    tok.padId,
  );
  pre.lastLogits.dispose();
  const pos = [...pre.positions];
  const sep = embedIds(s, new Array<number>(B).fill(tok.sepId));
  let step = feed(s, pre.cache, sep, pos, live);
  disposeCache(pre.cache);
  sep.dispose();
  for (let b = 0; b < B; b++) pos[b] += 1;
  const latentRng = o.rng.fork('latents');
  const controlRng = o.rng.fork('control');
  const stopRng = o.rng.fork('stop');
  try {
    for (let k = 0; k < cap && live.some(Boolean); k++) {
      const { z, x } = tidy(() => {
        const head = headForward(s.head, step.hidden);
        const z = sampleLatent(head, cfg.latentTemperature, latentRng.fork(`k${k}`), greedy) as tf.Tensor2D; // [B, C]
        const scaled = tf.mul(z, s.embStd);
        const x =
          o.control && o.control !== 'none' ? applyLatentControl(scaled, o.control, controlRng.fork(`k${k}`)) : scaled; // [B, C]
        return { z, x };
      });
      const C = z.shape[1];
      const x3 = tf.expandDims(x, 1) as tf.Tensor3D; // [B, 1, C]
      const next = feed(s, step.cache, x3, pos, live);
      // One read per latent step: z [B·C], x [B·C] and the stop inputs [B], packed.
      const packed = tf.tidy(() =>
        tf.concat([tf.reshape(z, [-1]), tf.reshape(x, [-1]), stopInputs(next.logits, tok.sepId, stopTemperature)]),
      );
      tf.dispose([z, x, x3]);
      disposeStep(step);
      step = next;
      let flat: Float32Array;
      try {
        flat = (await packed.data()) as Float32Array;
      } finally {
        packed.dispose();
      }
      const stops = stopDecisions(flat.subarray(2 * B * C), tok.sepId, stopTemperature, stopRng.fork(`k${k}`));
      for (let b = 0; b < B; b++) {
        if (!live[b]) continue;
        rows[b].latents.push(flat.slice(b * C, (b + 1) * C));
        rows[b].fed.push(flat.slice((B + b) * C, (B + b + 1) * C));
        pos[b] += 1;
        if (stops[b]) {
          rows[b].stopSampled = true;
          live[b] = false;
        }
      }
    }
    // The closing ### for every row (each at its own position), then the answer.
    const sepIn = embedIds(s, new Array<number>(B).fill(tok.sepId));
    const last = feed(s, step.cache, sepIn, pos, new Array<boolean>(B).fill(true));
    sepIn.dispose();
    disposeStep(step);
    step = last;
    for (let b = 0; b < B; b++) pos[b] += 1;
    const maxNewTokens = Math.min(o.maxNewTokens, s.lm.config.contextLength - Math.max(...pos) + 1);
    const out = await decode(s.lm, step.cache, step.logits, pos, {
      maxNewTokens,
      stopTokens: [tok.eosId],
      padId: tok.padId,
      temperature: o.temperature,
      topP: o.topP,
      rng: o.rng.fork('answer'),
    });
    step.hidden.dispose();
    step.logits.dispose();
    out.tokens.forEach((t, b) => (rows[b].answer = t));
    return rows;
  } catch (e) {
    disposeStep(step); // disposing twice (decode frees its cache itself) is harmless
    throw e;
  }
}

/**
 * What the stop decision reads per row, from logits [B, V] → [B] (float32): the argmax id
 * (temperature 0) or p(###) at the temperature.
 */
export function stopInputs(logits: tf.Tensor2D, sepId: number, temperature: number): tf.Tensor1D {
  return tf.tidy(() => {
    if (temperature <= 0) return tf.cast(tf.argMax(logits, -1), 'float32') as tf.Tensor1D;
    return tf.reshape(tf.slice(tf.softmax(tf.div(logits, temperature)), [0, sepId], [-1, 1]), [-1]) as tf.Tensor1D;
  });
}

/**
 * Whether each row's sampled token is ### — drawn as one Bernoulli(p(###)) per row, which has
 * the distribution of sampling a whole token and comparing it (without sorting the vocabulary);
 * temperature 0: the argmax is ###. `stopInputs`' values [B] → B booleans.
 */
export function stopDecisions(values: ArrayLike<number>, sepId: number, temperature: number, rng: Rng): boolean[] {
  if (temperature <= 0) return Array.from(values, (i) => i === sepId);
  return Array.from(values, (pb) => rng.float() < pb);
}

function disposeStep(step: Step): void {
  tf.dispose([step.hidden, step.logits]);
  disposeCache(step.cache);
}
