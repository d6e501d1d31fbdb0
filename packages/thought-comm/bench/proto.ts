// Scratch driver for tuning (not part of the package API).
import { initBackend, parseConfig, Rng } from '@telepath/core';
import { DEFAULT_AUTOENCODER_CONFIG, DEFAULT_READOUT_CONFIG, DEFAULT_SYNTHETIC_CONFIG } from '../src/config.js';
import { evaluateIdentification } from '../src/evaluate.js';
import { fitAutoencoder } from '../src/fit.js';
import { makeWorld, sampleWorld, structuralSparsityViolations, worldJacobian } from '../src/synthetic.js';
import { columnStats } from '../src/model.js';

const args = JSON.parse(process.argv[2] ?? '{}');
const info = await initBackend(args.backend, { quiet: true });
const syn = parseConfig(DEFAULT_SYNTHETIC_CONFIG, args.syn ?? {});
const aec = parseConfig(DEFAULT_AUTOENCODER_CONFIG, args.ae ?? {});
const rng = new Rng(args.seed ?? 0);
const world = makeWorld(syn, rng.fork('world'));
console.log(info.backend, 'Z', world.latentDim, 'H', world.stateDim, 'violations', structuralSparsityViolations(world.support, world.stateDim, world.latentDim).length);
const train = sampleWorld(world, args.n ?? 4000, rng.fork('train'));
const test = sampleWorld(world, 1000, rng.fork('test'));
{
  const H = world.stateDim, Z = world.latentDim;
  const hs = columnStats(train.h, train.n, H), zs = columnStats(train.z, train.n, Z);
  let pen = 0; const ns = 200;
  for (let s = 0; s < ns; s++) {
    const J = worldJacobian(world, train.z.subarray(s * Z, (s + 1) * Z));
    for (let i = 0; i < H; i++) for (let j = 0; j < Z; j++) pen += Math.abs(J[i * Z + j]) * zs.std[j] / hs.std[i] / (ns * H);
  }
  console.log('true-decoder penalty (l1)', pen.toFixed(4));
}
const t0 = performance.now();
const fit = await fitAutoencoder({ h: train.h, n: train.n, stateDim: world.stateDim, latentDim: world.latentDim, agentRanges: world.agentRanges, config: aec, rng: rng.fork('ae'), logEvery: args.logEvery ?? 250,
  onLog: (l) => console.log(`step ${l.step} loss ${l.loss.toFixed(4)} rec ${l.reconstruction.toFixed(4)} pen ${l.penalty.toFixed(4)} lam ${l.lambda.toExponential(2)} ${l.ms.toFixed(0)}ms`) });
const t1 = performance.now();
const m = evaluateIdentification(fit.ae, world, train, test, DEFAULT_READOUT_CONFIG, rng.fork('eval'));
console.log(JSON.stringify({ mcc: m.mcc, sp: m.mccSpearman, f1: m.supportF1, P: m.support.precision, R: m.support.recall, bF1: m.blockSupport.f1, br2: m.blockR2, alpha: m.alphaHistogram, trueAlpha: m.trueAlphaHistogram, rec: m.reconstruction, perLatent: m.perm.map((_, i) => 0), train_s: ((t1 - t0) / 1000).toFixed(1), eval_s: ((performance.now() - t1) / 1000).toFixed(1) }));
