/**
 * Tuning helper for ThoughtComm's synthetic identification (docs/method-reference.md §1.11): fits one
 * autoencoder per JSON spec and prints one line of metrics per spec, plus the ℓ1 penalty of the
 * true mixing (standardised), a reference for λ. Not part of the package API.
 *   npx tsx packages/thought-comm/bench/tune.ts '[{"syn":{"stateDim":128},"ae":{"lambda":0.1}}]'
 * Spec keys: backend, seed, n (train samples), syn (SyntheticConfig overrides), ae (AutoencoderConfig overrides).
 */
import { initBackend, parseConfig, Rng, type BackendCandidate } from '@telepath/core';
import { DEFAULT_AUTOENCODER_CONFIG, DEFAULT_READOUT_CONFIG, DEFAULT_SYNTHETIC_CONFIG } from '../src/config.js';
import { evaluateIdentification } from '../src/evaluate.js';
import { fitAutoencoder } from '../src/fit.js';
import { columnStats } from '../src/autoencoder.js';
import { makeWorld, sampleWorld, worldJacobian, type SyntheticSample, type SyntheticWorld } from '../src/synthetic.js';

interface Spec {
  backend?: BackendCandidate;
  seed?: number;
  n?: number;
  syn?: object;
  ae?: object;
}
const specs = JSON.parse(process.argv[2] ?? '[{}]') as Spec[];
await initBackend(specs[0]?.backend, { quiet: true });
for (const spec of specs) {
  const rng = new Rng(spec.seed ?? 0);
  const world = makeWorld(parseConfig(DEFAULT_SYNTHETIC_CONFIG, spec.syn ?? {}), rng.fork('world'));
  const train = sampleWorld(world, spec.n ?? 4000, rng.fork('train'));
  const test = sampleWorld(world, 1000, rng.fork('test'));
  const config = parseConfig(DEFAULT_AUTOENCODER_CONFIG, spec.ae ?? {});
  const fit = await fitAutoencoder({
    h: train.h,
    n: train.n,
    stateDim: world.stateDim,
    latentDim: world.latentDim,
    agentRanges: world.agentRanges,
    config,
    rng: rng.fork('ae'),
  });
  const m = await evaluateIdentification(fit.ae, world, train, test, DEFAULT_READOUT_CONFIG, rng.fork('eval'));
  fit.ae.dispose();
  const r = (x: number) => Number(x.toFixed(3));
  console.log(JSON.stringify(spec));
  console.log(
    '  ',
    JSON.stringify({
      mcc: r(m.mcc),
      spearman: r(m.mccSpearman),
      supportF1: r(m.supportF1),
      blockF1: r(m.blockSupport.f1),
      blockR2: r(m.blockR2),
      alpha: m.alphaHistogram,
      trueAlpha: m.trueAlphaHistogram,
      rec: r(m.reconstruction),
      truePenalty: r(truePenalty(world, train)),
      seconds: r(fit.seconds),
    }),
  );
}

/** E_n (1/n_h) Σ_ij |J_ij| of the true mixing in standardised coordinates. */
function truePenalty(w: SyntheticWorld, s: SyntheticSample, samples = 200): number {
  const { stateDim: H, latentDim: Z } = w;
  const hs = columnStats(s.h, s.n, H);
  const zs = columnStats(s.z, s.n, Z);
  let pen = 0;
  for (let k = 0; k < samples; k++) {
    const J = worldJacobian(w, s.z.subarray(k * Z, (k + 1) * Z));
    for (let i = 0; i < H; i++)
      for (let j = 0; j < Z; j++) pen += (Math.abs(J[i * Z + j]) * zs.std[j]) / hs.std[i] / (samples * H);
  }
  return pen;
}
