/**
 * Structure read-off on real agent states (ThoughtComm part 2, docs/method-reference.md §1.5, §1.7): reads the
 * round-0 states an agents run stored (`runs/<name>/s<seed>/states.bin`), fits one autoencoder per
 * JSON spec of AutoencoderConfig overrides and prints the α histogram, reconstruction and, per
 * thought, the ratio of its weakest to its strongest agent relevance (min_k s_kj / max_k s_kj: the
 * read-off drops agent k below blockTau = 0.1). Not part of the package API.
 *   npx tsx packages/thought-comm/bench/agent-structure.ts runs/thought-comm-agents-gsm8k/s0 '[{"lambda":0.1},{"lambda":1}]'
 */
import * as path from 'node:path';
import * as tf from '@tensorflow/tfjs-core';
import { initBackend, parseConfig, readTensorFile, Rng } from '@telepath/core';
import { DEFAULT_AGENTS_EXPERIMENT_CONFIG } from '../src/agents-config.js';
import { DEFAULT_READOUT_CONFIG } from '../src/config.js';
import { fitAutoencoder } from '../src/fit.js';
import { encode } from '../src/autoencoder.js';
import { readStructure } from '../src/structure.js';

const [dir, specsJson] = process.argv.slice(2);
if (!dir) {
  console.error('usage: agent-structure.ts RUN_DIR [JSON list of autoencoder overrides]');
  process.exit(2);
}
await initBackend(undefined, { quiet: true });
const file = await readTensorFile(path.join(dir, 'states.bin'));
const pool = file.tensors.get('pool')!;
const meta = file.meta as { agentRanges: [number, number][] };
const [N, H] = pool.shape;
for (const spec of JSON.parse(specsJson ?? '[{}]') as object[]) {
  const config = parseConfig(DEFAULT_AGENTS_EXPERIMENT_CONFIG.autoencoder, spec);
  const fit = await fitAutoencoder({
    h: pool.values as Float32Array,
    n: N,
    stateDim: H,
    latentDim: config.latentDim,
    agentRanges: meta.agentRanges,
    config,
    rng: new Rng(0).fork('ae'),
  });
  const z = tf.tidy(() => encode(fit.ae, tf.tensor2d(pool.values as Float32Array, [N, H])));
  const st = await readStructure(fit.ae, z, meta.agentRanges, DEFAULT_READOUT_CONFIG);
  const A = st.agents;
  const ratios = Array.from({ length: st.latentDim }, (_, j) => {
    const s = Array.from({ length: A }, (_, k) => st.relevance[k * st.latentDim + j]);
    return Math.min(...s) / Math.max(...s);
  }).sort((a, b) => a - b);
  const q = (p: number) => ratios[Math.min(ratios.length - 1, Math.floor(p * ratios.length))].toFixed(2);
  console.log(
    JSON.stringify(spec),
    JSON.stringify({
      alpha: st.alphaHistogram,
      rec: Number(fit.final.reconstruction.toFixed(4)),
      minMaxRelevance: { min: q(0), median: q(0.5), max: q(1) },
      seconds: Math.round(fit.seconds),
    }),
  );
  z.dispose();
  fit.ae.dispose();
}
