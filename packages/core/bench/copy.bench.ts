/**
 * `npm run bench:copy [-- --format flat --positions rotary --length 40 --names 10 --steps 1000]`:
 * can a TinyLm learn to copy its prompt? Each row is `<bos> s <sep> s` with s a random sequence of
 * length/2..length ids drawn from `names` ids, trained on the second s only. The length varies, so
 * no fixed offset copies it: the model needs an induction mechanism (attend to where the current
 * token stood before, take the token after it), and with few names the current token stands in
 * several places, so one token of context is ambiguous — as in a ProsQA question, where every
 * name recurs. --format groups and echo make the prompt ProsQA-like groups, copied as they stand
 * or as the echo trace writes them (each group after "+", a newline after it). Prints the copy
 * loss (nats per copied token) every 50 steps and the first logged step below 0.1. A probe of what
 * the architecture can learn, not a test.
 */
import { parseArgs } from 'node:util';
import * as tf from '@tensorflow/tfjs-core';
import {
  DEFAULT_OPTIM_CONFIG,
  initBackend,
  maskedCrossEntropy,
  Rng,
  TinyLm,
  train,
  type BackendCandidate,
  type PositionKind,
} from '@telepath/core';

const HELP = `Usage: npm run bench:copy -- [--format flat|groups|echo|heads|heads-echo] [--positions learned|rotary] [--layers N] [--length N] [--names N]
                              [--steps N] [--batch N] [--backend NAME] [--json]
  --positions  lm.positions (default rotary)
  --format     flat: the prompt is random names, copied as it stands (default);
               groups: the prompt is ProsQA-like groups " h: c1 c2." (1-4 children), copied as they stand;
               echo: the same groups, each copied as "+ h: c1 c2." and a newline (ProsQA's echo trace);
               heads: the same groups as "H c1 c2", no punctuation, H the head's own id (copied as they stand);
               heads-echo: those groups copied as ProsQA's headed echo writes them, "+ H c1 c2" and a newline
  --layers     layers of the 4-head, width-128 model (default 4)
  --length     the longest prompt; each is length/2..length long (groups: until a group ends past it) (default 40)
  --names      distinct ids a sequence draws from (default 10: each recurs ≈ 3 times in 30)
  --steps      training steps (default 1000), AdamW lr 1e-3, 20 warm-up steps, no decay
  --batch      rows per step (default 32)
  --json       one JSON line {"config", "losses": [[step, loss], …], "learntAt"} instead of text`;

const { values } = parseArgs({
  options: {
    positions: { type: 'string', default: 'rotary' },
    format: { type: 'string', default: 'flat' },
    layers: { type: 'string', default: '4' },
    length: { type: 'string', default: '40' },
    names: { type: 'string', default: '10' },
    steps: { type: 'string', default: '1000' },
    batch: { type: 'string', default: '32' },
    backend: { type: 'string', default: 'native' },
    json: { type: 'boolean', default: false },
    help: { type: 'boolean', short: 'h', default: false },
  },
});
if (values.help) {
  console.log(HELP);
  process.exit(0);
}
const int = (key: 'layers' | 'length' | 'names' | 'steps' | 'batch', min: number): number => {
  const v = Number(values[key]);
  if (!Number.isInteger(v) || v < min) {
    console.error(`bench:copy: --${key} must be an integer ≥ ${min}, got ${values[key]}`);
    process.exit(2);
  }
  return v;
};
const [layers, L, names, steps, B] = [
  int('layers', 1),
  int('length', 2),
  int('names', 2),
  int('steps', 1),
  int('batch', 1),
];
const positions = values.positions as PositionKind;
const FORMATS = ['flat', 'groups', 'echo', 'heads', 'heads-echo'] as const;
const format = values.format as (typeof FORMATS)[number];
if (!FORMATS.includes(format)) {
  console.error(`bench:copy: --format must be one of ${FORMATS.join(', ')}, got ${values.format}`);
  process.exit(2);
}

const FIRST_NAME = 4; // ids 0..3: pad, bos, sep, unused; then the names; then groups' punctuation or the heads
const [PAD, BOS, SEP] = [0, 1, 2];
const headed = format === 'heads' || format === 'heads-echo';
const PUNCTUATION = FIRST_NAME + names + (headed ? names : 0); // after the heads' ids, if any
const [COLON, DOT, NEWLINE, PLUS] = [0, 1, 2, 3].map((i) => PUNCTUATION + i);
const vocabSize =
  FIRST_NAME + names + (format === 'flat' ? 0 : format === 'heads' ? names : format === 'heads-echo' ? names + 4 : 4);
/**
 * Groups end past the drawn length by at most 6 ids (h : c1..c4 .; headed: 4); an echo is at most
 * 1.5× its prompt (+ and a newline per group of ≥ 4), a headed echo twice (groups of 2).
 */
const ROW =
  format === 'flat'
    ? 2 * L + 2
    : format === 'heads'
      ? 2 * (L + 4) + 2
      : format === 'heads-echo'
        ? 3 * (L + 4) + 2
        : 2 + Math.ceil(((L + 6) * 5) / 2);
const T = ROW - 1; // inputs per row, less the last target

const name = (rng: Rng) => FIRST_NAME + rng.int(names);
/** A name's head form: its own id after the names. */
const head = (rng: Rng) => FIRST_NAME + names + rng.int(names);

/** One row: ids [ROW] right-padded, and the targets to train (the copy), from..to-1. */
function copyRow(rng: Rng): { ids: number[]; from: number; to: number } {
  const len = Math.ceil(L / 2) + rng.int(Math.floor(L / 2) + 1);
  let prompt: number[];
  let copy: number[];
  if (format === 'flat') {
    prompt = Array.from({ length: len }, () => name(rng));
    copy = prompt;
  } else {
    // ProsQA's grouped question, " h: c1 c2." per node (headed: "H c1 c2", no punctuation), 1-4 children each.
    const children = () => Array.from({ length: 1 + rng.int(4) }, () => name(rng));
    const groups: number[][] = [];
    for (let n = 0; n < len; n += groups[groups.length - 1].length)
      groups.push(headed ? [head(rng), ...children()] : [name(rng), COLON, ...children(), DOT]);
    prompt = groups.flat();
    copy = format === 'groups' || format === 'heads' ? prompt : groups.flatMap((g) => [PLUS, ...g, NEWLINE]);
  }
  const row = [BOS, ...prompt, SEP, ...copy];
  return { ids: [...row, ...Array<number>(ROW - row.length).fill(PAD)], from: prompt.length + 1, to: row.length - 1 };
}

await initBackend(values.backend as BackendCandidate, { quiet: true });
const lm = new TinyLm({ vocabSize, contextLength: T, layers, heads: 4, width: 128, positions }, new Rng(0));
const losses: [number, number][] = [];
await train({
  params: lm.params,
  rng: new Rng(1),
  config: {
    steps,
    logEvery: 50,
    optim: { ...DEFAULT_OPTIM_CONFIG, lr: 1e-3, lrMinRatio: 1, warmupSteps: 20 },
  },
  loss: (at) =>
    tf.tidy(() => {
      const rows = Array.from({ length: B }, () => copyRow(at.rng));
      const ids = tf.tensor2d(
        rows.map((r) => r.ids),
        [B, ROW],
        'int32',
      );
      const x = tf.slice(ids, [0, 0], [B, T]) as tf.Tensor2D; // [B, T]
      const y = tf.slice(ids, [0, 1], [B, T]) as tf.Tensor2D; // [B, T]
      // Target t is the token at t + 1: the copy's targets are positions from..to-1.
      const mask = tf.tensor2d(
        rows.map((r) => Array.from({ length: T }, (_, t) => (t >= r.from && t < r.to ? 1 : 0))),
        [B, T],
      ); // [B, T]
      return maskedCrossEntropy(lm.forward(lm.embed(x)).logits, y, mask);
    }),
  onLog: (l) => {
    losses.push([l.step, l.loss]);
    if (!values.json) console.log(`step ${String(l.step).padStart(5)}  copy loss ${l.loss.toFixed(3)}`);
  },
});
const learntAt = losses.find(([, loss]) => loss < 0.1)?.[0] ?? null;
const config = { format, positions, layers, length: L, names, steps, batch: B, params: lm.size };
if (values.json) console.log(JSON.stringify({ config, losses, learntAt }));
else
  console.log(
    `${JSON.stringify(config)}: ${learntAt === null ? `not learnt in ${steps} steps (copy loss never below 0.1)` : `copy loss below 0.1 from step ${learntAt}`}`,
  );
lm.dispose();
