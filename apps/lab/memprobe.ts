import * as tf from '@tensorflow/tfjs-core';
import { initBackend } from '@telepath/core';
import { poolStats } from '@telepath/backend-native';
import { loadExperiment } from './src/experiment/load-experiment.js';
import { onlyArms } from './src/experiment/only-arms.js';
import { runExperiment } from './src/running/run-experiment.js';
const steps = Number(process.argv[2] ?? 30);
await initBackend('native', { quiet: true });
const exp = onlyArms(await loadExperiment('../../experiments/prosqa-refs.json', [`seeds=[1]`, `arms.done-headed-after-queue.config.steps=${steps}`, 'data.testLimit=20']), ['done-headed-after-queue']);
const timer = setInterval(() => {
  const p = poolStats(tf as never);
  console.error(`rss ${(process.memoryUsage().rss / 2 ** 30).toFixed(2)} GiB, pool live ${((p?.liveBytes ?? 0) / 2 ** 30).toFixed(2)} peak ${((p?.peakLiveBytes ?? 0) / 2 ** 30).toFixed(2)} idle ${((p?.idleBytes ?? 0) / 2 ** 30).toFixed(2)} GiB, tf bytes ${(tf.memory().numBytes / 2 ** 30).toFixed(2)} ab ${(process.memoryUsage().arrayBuffers / 2 ** 30).toFixed(2)} heap ${(process.memoryUsage().heapUsed / 2 ** 30).toFixed(2)} miss ${p?.misses} taint ${p?.tainted} drop ${p?.dropped}`);
}, 15000);
await runExperiment(exp, { runsDir: '/work/scratch/memruns', quiet: true, log: (l) => console.error(l) });
clearInterval(timer);
