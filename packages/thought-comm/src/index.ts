/**
 * @telepath/thought-comm — "Thought Communication in Multiagent Collaboration" (Zheng et al.,
 * NeurIPS 2025, arXiv 2510.20733). Part 1: identification of shared and private latent thoughts
 * (docs/method-reference.md §1.1, §1.5–1.7, §1.11–1.12): synthetic data-generating process, sparse-Jacobian
 * autoencoder, structure read-off, identification metrics and the synthetic experiment. Part 2
 * (§1.3–1.10): agents (core LMs), routing with agreement weights, prefix adapters, debate rounds.
 */
export * from './config.js';
export * from './synthetic.js';
export * from './autoencoder.js';
export * from './jacobian.js';
export * from './loss.js';
export * from './fit.js';
export * from './structure.js';
export * from './hungarian.js';
export * from './metrics.js';
export * from './block-r2.js';
export * from './evaluate.js';
export * from './experiment.js';
export * from './report.js';
// Part 2: agents that share thoughts (docs/method-reference.md §1.3–1.10).
export * from './agents-config.js';
export * from './agents.js';
export * from './model.js';
export * from './adapter-loss.js';
export * from './debate.js';
export * from './agents-experiment.js';
export * from './agent-records.js';
export * from './agents-report.js';
