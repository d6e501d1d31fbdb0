// Times one autoencoder training step (loss + gradients) per backend and size.
import * as tf from '@tensorflow/tfjs-core';
import { initBackend, parseConfig, Rng } from '@telepath/core';
import { DEFAULT_AUTOENCODER_CONFIG } from '../src/config.js';
import { autoencoderLoss } from '../src/loss.js';
import { createAutoencoder } from '../src/autoencoder.js';
import { agentRanges } from '../src/synthetic.js';

const args = JSON.parse(process.argv[2] ?? '{}');
const info = await initBackend(args.backend, { quiet: true });
const cfg = parseConfig(DEFAULT_AUTOENCODER_CONFIG, args.ae ?? {});
for (const H of args.sizes ?? [128, 1024]) {
  const Z = 16;
  const ae = createAutoencoder(cfg, H, Z, { mean: new Float32Array(H), std: new Float32Array(H).fill(1) }, new Rng(0));
  const rng = new Rng(1);
  const x = tf.tensor2d(rng.normalArray(cfg.batch * H), [cfg.batch, H]);
  const vars = [...ae.params.values()];
  for (const lambda of [0, 0.01]) {
    const times: number[] = [];
    for (let r = 0; r < (args.reps ?? 12); r++) {
      const t0 = performance.now();
      const { value, grads } = tf.variableGrads(
        () => autoencoderLoss(ae, x, { lambda, agentRanges: agentRanges(H, 3) }).total,
        vars,
      );
      await value.data(); // waits for the step (asynchronous: works on webgpu)
      tf.dispose([value, ...Object.values(grads)]);
      times.push(performance.now() - t0);
    }
    times.sort((a, b) => a - b);
    console.log(
      `${info.backend} H=${H} lambda=${lambda} median ${times[times.length >> 1].toFixed(1)} ms  min ${times[0].toFixed(1)} ms`,
    );
  }
  x.dispose();
  ae.dispose();
}
