/**
 * The micro experiment settings the lab's end-to-end tests share: Countdown-3, a 1-layer width-16
 * LM and a few steps on the cpu backend, so a whole `telepath run` takes about a second.
 */
export const MICRO_SETTINGS = {
  task: 'countdown',
  data: { n: 3, trainCount: 40, testCount: 6, seed: 0 },
  seeds: [0],
  lm: { layers: 1, heads: 2, width: 16 },
  train: { batchSize: 4, logEvery: 1, checkpointEvery: 2, optim: { lr: 0.003, warmupSteps: 1 } },
  eval: { batchSize: 3, maxNewTokens: 24, controls: [] as string[], curveEvery: 2, curveExamples: 4 },
};
