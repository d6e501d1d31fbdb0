import * as tf from '@tensorflow/tfjs-core';
import { afterEach, beforeAll, expect, it } from 'vitest';
import { initBackend } from './backend.js';
import { installSizeGuards, removeSizeGuards, sizeGuardLimit, TensorSizeError, tensorBytes } from './size-guard.js';

// The guards wrap any backend's kernels; on cpu with a small limit they run without a GPU.
beforeAll(async () => {
  await initBackend('cpu', { quiet: true });
});
afterEach(() => removeSizeGuards('cpu'));

it('counts 4 bytes per element (8 for complex64)', () => {
  expect(tensorBytes([2, 3], 'float32')).toBe(24);
  expect(tensorBytes([2, 3], 'int32')).toBe(24);
  expect(tensorBytes([5], 'complex64')).toBe(40);
});

it('refuses an input above the limit before the kernel runs, naming the kernel, the input and the limit', () => {
  installSizeGuards('cpu', 64);
  const before = tf.memory().numTensors;
  const big = tf.zeros([17]); // 68 bytes
  expect(() => tf.relu(big)).toThrow(TensorSizeError);
  expect(() => tf.relu(big)).toThrow(
    'cpu: Relu input "x" of shape [17] (float32) needs 68 bytes (0.0 MiB), above this adapter\'s maxStorageBufferBindingSize of 64 bytes (0.0 MiB)',
  );
  big.dispose();
  expect(tf.memory().numTensors).toBe(before);
});

it('refuses an output above the limit and frees it; tensors within the limit pass unchanged', () => {
  installSizeGuards('cpu', 64);
  const a = tf.ones([4, 2]);
  const b = tf.ones([2, 5]); // 40 bytes in, 80 bytes out
  const before = tf.memory().numTensors;
  expect(() => tf.matMul(a, b)).toThrow(/cpu: BatchMatMul output of shape \[4,5\] \(float32\) needs 80 bytes/);
  expect(tf.memory().numTensors).toBe(before);
  expect(Array.from(tf.matMul(a, tf.ones([2, 4])).dataSync())).toEqual(new Array(16).fill(2));
  tf.dispose([a, b]);
});

it('installing again replaces the limit; removing restores the original kernels', () => {
  installSizeGuards('cpu', 16);
  expect(() => tf.relu(tf.zeros([8]))).toThrow(TensorSizeError);
  installSizeGuards('cpu', 1024);
  expect(sizeGuardLimit('cpu')).toBe(1024);
  expect(tf.relu(tf.zeros([8])).shape).toEqual([8]);
  removeSizeGuards('cpu');
  expect(sizeGuardLimit('cpu')).toBeUndefined();
  expect(tf.relu(tf.zeros([1024])).shape).toEqual([1024]);
});
