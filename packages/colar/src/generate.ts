/**
 * CoLaR inference at speed c (arXiv 2505.16552; stopping as in the released code, docs/method-reference.md
 * §5): the prompt ends with "Thinking speed: c" and the opening ###; then, per latent step, a
 * latent is sampled from the head, multiplied by the embedding scale and fed back as the next
 * input embedding, and one token is sampled from the LM head — when it is ### the row is done
 * (rows that are done keep their cache positions masked). A cap (maxLatents, and the context
 * length) forces the stop. Then embed(###) is fed and the answer decoded with core's `decode`.
 * Reasoning length = latents fed, including the one after which ### was sampled. Rows that
 * stopped leave the batch once they are half of it (core's `cacheRows`; their caches are rejoined
 * for the closing ###), so a few rows running to the cap do not hold every row there; every random
 * draw is made for the whole batch, so each row decodes as it does without that (`wholeBatch`).
 * Each latent step reads back one packed tensor asynchronously (the latents, the fed vectors and
 * the stop inputs: whether to go on depends on it); nothing is read synchronously (webgpu).
 * Letters: B rows, C width, V vocab.
 */
import * as tf from '@tensorflow/tfjs-core';
import {
  applyLatentControl,
  cacheRows,
  concatCacheRows,
  decode,
  disposeCache,
  keepCache,
  prefill,
  rowIndices,
  tidy,
  type HeldRows,
  type KvCache,
  type LatentControl,
  type Rng,
} from '@telepath/core';
import { headForward, sampleLatent } from './latent-head.js';
import { embedIds, feed, openingInputs, type Step } from './model.js';
import type { RolloutRow } from './layout.js';
import type { ColarState } from './state.js';

export interface RolloutOptions {
  /** The speed the prompts name (their opening ### reads its vector, with `speedVector`). */
  speed: number;
  /** Latents: head mean and argmax stop token ('greedy'), or samples ('sample'). */
  decoding: 'sample' | 'greedy';
  /** Answer decoding after the closing ###. */
  temperature: number;
  topP: number;
  maxNewTokens: number;
  rng: Rng;
  control?: LatentControl;
  /**
   * Decode every row to the batch's last latent step (as rollouts did before stopped rows left
   * the batch): the same results, slower; for checking that they are the same.
   */
  wholeBatch?: boolean;
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
  const results: RolloutRow[] = prompts.map((prompt) => ({
    prompt,
    speed: o.speed,
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
  const sep = openingInputs(s, B, o.speed); // [B, 1, C]
  let step = feed(s, pre.cache, sep, pos, live);
  disposeCache(pre.cache);
  sep.dispose();
  for (let b = 0; b < B; b++) pos[b] += 1;
  const latentRng = o.rng.fork('latents');
  const controlRng = o.rng.fork('control');
  const stopRng = o.rng.fork('stop');
  // Rows that stopped leave the batch once they are half of it (their cache set aside, rejoined for
  // the closing ###), unless the shuffle control mixes the rows of the whole batch.
  const control = o.control ?? 'none';
  const compact = !o.wholeBatch && control !== 'shuffle';
  let held = Array.from({ length: B }, (_, b) => b); // the rows step's tensors hold, in order
  const setAside: { rows: number[]; cache: KvCache }[] = [];
  try {
    for (let k = 0; k < cap && live.some(Boolean); k++) {
      if (compact && 2 * held.filter((b) => live[b]).length <= held.length) {
        const going = held.filter((b) => live[b]);
        const left = held.filter((b) => !live[b]);
        setAside.push({ rows: left, cache: rowsOf(step.cache, held, left) });
        const kept = stepRows(step, held, going);
        disposeStep(step);
        step = kept;
        held = going;
      }
      const A = held.length;
      const rows = { held, of: B };
      const { z, x } = tidy(() => {
        const head = headForward(s.head, step.hidden);
        const z = sampleLatent(head, cfg.latentTemperature, latentRng.fork(`k${k}`), greedy, rows) as tf.Tensor2D; // [A, C]
        const scaled = tf.mul(z, s.embStd);
        const x =
          control !== 'none'
            ? applyLatentControl(scaled, control, controlRng.fork(`k${k}`), compact ? rows : undefined)
            : scaled; // [A, C]
        return { z, x };
      });
      const C = z.shape[1];
      const x3 = tf.expandDims(x, 1) as tf.Tensor3D; // [A, 1, C]
      const next = feed(
        s,
        step.cache,
        x3,
        held.map((b) => pos[b]),
        held.map((b) => live[b]),
      );
      // One read per latent step: z [A·C], x [A·C] and the stop inputs [A], packed.
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
      const stops = stopDecisions(flat.subarray(2 * A * C), tok.sepId, stopTemperature, stopRng.fork(`k${k}`), rows);
      held.forEach((b, i) => {
        if (!live[b]) return;
        results[b].latents.push(flat.slice(i * C, (i + 1) * C));
        results[b].fed.push(flat.slice((A + i) * C, (A + i + 1) * C));
        pos[b] += 1;
        if (stops[b]) {
          results[b].stopSampled = true;
          live[b] = false;
        }
      });
    }
    // Every row back in its place (the set-aside caches padded with masked positions), then the
    // closing ### for every row (each at its own position), and the answer.
    const whole = setAside.length ? rejoin(step.cache, held, setAside, B) : step.cache;
    for (const a of setAside.splice(0)) disposeCache(a.cache);
    const sepIn = embedIds(s, new Array<number>(B).fill(tok.sepId));
    const last = feed(s, whole, sepIn, pos, new Array<boolean>(B).fill(true));
    sepIn.dispose();
    if (whole !== step.cache) disposeCache(whole);
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
    out.tokens.forEach((t, b) => (results[b].answer = t));
    return results;
  } catch (e) {
    disposeStep(step); // disposing twice (decode frees its cache itself) is harmless
    for (const a of setAside) disposeCache(a.cache);
    throw e;
  }
}

/** The cache rows of batch rows `rows` (a subsequence of `held`, the rows the cache holds), kept. */
function rowsOf(cache: KvCache, held: number[], rows: number[]): KvCache {
  return tidy(() => keepCache(cacheRows(cache, rowIndices(held, rows))));
}

/** A step's tensors for rows `rows` only (a subsequence of `held`). */
function stepRows(step: Step, held: number[], rows: number[]): Step {
  return tidy(() => {
    const at = rowIndices(held, rows);
    return {
      hidden: tf.gather(step.hidden, at) as tf.Tensor2D, // [R, C]
      logits: tf.gather(step.logits, at) as tf.Tensor2D, // [R, V]
      cache: keepCache(cacheRows(step.cache, at)),
    };
  });
}

/** The whole batch's cache in row order: `cache` (rows `held`) beside the set-aside caches, each padded to the longest. */
function rejoin(cache: KvCache, held: number[], setAside: { rows: number[]; cache: KvCache }[], B: number): KvCache {
  const order = [...held, ...setAside.flatMap((a) => a.rows)]; // the concatenation's rows
  if (order.length !== B) throw new Error(`rollout: ${order.length} rows to rejoin, expected ${B}`);
  return tidy(() => {
    const side = concatCacheRows([cache, ...setAside.map((a) => a.cache)]);
    return keepCache(
      cacheRows(
        side,
        rowIndices(
          order,
          Array.from({ length: B }, (_, b) => b),
        ),
      ),
    );
  });
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
export function stopDecisions(
  values: ArrayLike<number>,
  sepId: number,
  temperature: number,
  rng: Rng,
  rows?: HeldRows,
): boolean[] {
  const held = rows?.held ?? Array.from({ length: values.length }, (_, i) => i);
  const out = new Array<boolean>(rows?.of ?? values.length).fill(false);
  if (temperature <= 0) {
    held.forEach((b, i) => (out[b] = values[i] === sepId));
    return out;
  }
  // One uniform per row of the whole batch, in row order: a row not held draws and discards its own.
  let i = 0;
  for (let b = 0; b < out.length; b++) {
    const u = rng.float();
    if (held[i] === b) out[b] = u < values[i++];
  }
  return out;
}

function disposeStep(step: Step): void {
  tf.dispose([step.hidden, step.logits]);
  disposeCache(step.cache);
}
