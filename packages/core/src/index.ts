export * from './backend.js';
export * from './rng.js';
export * from './tokenizer.js';
export * from './atomic.js';
export * from './matmul.js';
