/**
 * CoLaR inference at speed c (arXiv 2505.16552; stopping as in the released code, docs/method-reference.md
 * §5): the prompt ends with "Thinking speed: c" and the opening ###; then, per latent step, a
 * latent is sampled from the head, multiplied by the embedding scale and fed back as the next
 * input embedding, and one token is sampled from the LM head — when it is ### the row is done
 * (rows that are done keep their cache positions masked). A cap (maxLatents, and the context
 * length) forces the stop. Then embed(###) is fed and the answer decoded with core's `decode`.
 * Reasoning length = latents fed, including the one after which ### was sampled.
 * Letters: B rows, C width, V vocab.
 */
import * as tf from '@tensorflow/tfjs-core';
import { applyLatentControl, decodeSync, disposeCache, prefill, tidy, type LatentControl, type Rng } from '@telepath/core';
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
 * until ### (or the cap), then the answer. Synchronous; owns and frees every tensor it makes.
 */
export function rollout(s: ColarState, prompts: number[][], o: RolloutOptions): RolloutRow[] {
  const cfg = s.config;
  const tok = s.tokenizer;
  const B = prompts.length;
  const longest = Math.max(...prompts.map((p) => p.length));
  const room = s.lm.config.contextLength - longest - 1 - o.maxNewTokens; // the closing ### and the answer must fit
  const cap = Math.max(1, Math.min(cfg.maxLatents, room));
  const greedy = o.decoding === 'greedy';
  const rows: RolloutRow[] = prompts.map((prompt) => ({ prompt, fed: [], latents: [], stopSampled: false, answer: [] }));
  const live = new Array<boolean>(B).fill(true);
  // Prefill all but the opening ###, then feed ### to get the hidden state the first latent comes from.
  const pre = prefill(s.lm, prompts.map((p) => p.slice(0, -1)), tok.padId);
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
        const x = o.control && o.control !== 'none' ? applyLatentControl(scaled, o.control, controlRng.fork(`k${k}`)) : scaled; // [B, C]
        return { z, x };
      });
      const C = z.shape[1];
      const zs = z.dataSync() as Float32Array; // [B·C]
      const xs = x.dataSync() as Float32Array;
      const x3 = tf.expandDims(x, 1) as tf.Tensor3D; // [B, 1, C]
      const next = feed(s, step.cache, x3, pos, live);
      tf.dispose([z, x, x3]);
      const stops = stopDecisions(next.logits, tok.sepId, greedy ? 0 : cfg.stopTemperature, stopRng.fork(`k${k}`));
      disposeStep(step);
      step = next;
      for (let b = 0; b < B; b++) {
        if (!live[b]) continue;
        rows[b].latents.push(zs.slice(b * C, (b + 1) * C));
        rows[b].fed.push(xs.slice(b * C, (b + 1) * C));
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
    const out = decodeSync(s.lm, step.cache, step.logits, pos, { maxNewTokens, stopTokens: [tok.eosId], padId: tok.padId, temperature: o.temperature, topP: o.topP, rng: o.rng.fork('answer') });
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
 * Whether each row's sampled token is ### — drawn as one Bernoulli(p(###)) per row, which has
 * the distribution of sampling a whole token and comparing it (without sorting the vocabulary);
 * temperature 0: the argmax is ###. logits [B, V] → B booleans.
 */
export function stopDecisions(logits: tf.Tensor2D, sepId: number, temperature: number, rng: Rng): boolean[] {
  if (temperature <= 0) return Array.from(tf.tidy(() => tf.argMax(logits, -1).dataSync()), (i) => i === sepId);
  const p = tf.tidy(() => tf.slice(tf.softmax(tf.div(logits, temperature)), [0, sepId], [-1, 1]).dataSync()); // [B]
  return Array.from(p, (pb) => rng.float() < pb);
}

function disposeStep(step: Step): void {
  tf.dispose([step.hidden, step.logits]);
  disposeCache(step.cache);
}
