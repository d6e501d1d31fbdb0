/** maskedCrossEntropy: its value against a hand computation and its written-out gradient against autodiff of the textbook formula, on every backend. */
import * as tf from '@tensorflow/tfjs-core';
import { expect, it } from 'vitest';
import { maskedCrossEntropy } from './loss.js';
import { Rng } from './rng.js';
import { expectClose, expectNoLeak, forEachBackend } from './testing.js';

/** The textbook form, differentiated by tfjs: mean over masked positions of logsumexp − the target's logit. */
function reference(logits: tf.Tensor3D, targets: tf.Tensor2D, mask: tf.Tensor2D): tf.Scalar {
  const V = logits.shape[2];
  const picked = tf.sum(tf.mul(logits, tf.oneHot(targets, V)), -1); // [B, T]
  const nll = tf.mul(tf.sub(tf.logSumExp(logits, -1), picked), mask); // [B, T]
  return tf.div(tf.sum(nll), tf.maximum(tf.sum(mask), 1)) as tf.Scalar;
}

function randomCase(seed: number, B: number, T: number, V: number) {
  const rng = new Rng(seed);
  const logits = tf.tensor3d(
    Array.from({ length: B * T * V }, () => 4 * rng.normal()),
    [B, T, V],
  );
  const targets = tf.tensor2d(
    Array.from({ length: B * T }, () => rng.int(V)),
    [B, T],
    'int32',
  );
  const mask = tf.tensor2d(
    Array.from({ length: B * T }, (_, i) => (i % 3 === 1 ? 0 : 1)),
    [B, T],
  );
  return { logits, targets, mask };
}

forEachBackend((_backend, ready) => {
  it('equals −log softmax at the target, averaged over the masked positions (hand computation)', (ctx) => {
    if (!ready()) ctx.skip();
    const rows = [
      [0, 1, 2],
      [3, 0, 0],
      [1, 1, 1],
    ];
    const targets = [2, 1, 0];
    const logits = tf.tensor3d(rows.flat(), [1, 3, 3]);
    const loss = maskedCrossEntropy(logits, tf.tensor2d([targets], [1, 3], 'int32'), tf.tensor2d([[1, 0, 1]]));
    const nll = (r: number[], t: number) => Math.log(r.reduce((s, x) => s + Math.exp(x), 0)) - r[t];
    expectClose(loss, (nll(rows[0], 2) + nll(rows[2], 0)) / 2, { atol: 1e-5 });
  });

  it('its gradient equals autodiff of the textbook formula, and masked positions get none', (ctx) => {
    if (!ready()) ctx.skip();
    const { logits, targets, mask } = randomCase(3, 2, 5, 7);
    const ours = tf.grad((x: tf.Tensor) => maskedCrossEntropy(x as tf.Tensor3D, targets, mask))(logits); // [B, T, V]
    const theirs = tf.grad((x: tf.Tensor) => reference(x as tf.Tensor3D, targets, mask))(logits);
    expectClose(maskedCrossEntropy(logits, targets, mask), reference(logits, targets, mask), { atol: 1e-5 });
    expectClose(ours, theirs, { atol: 1e-6 });
    const perPosition = tf.sum(tf.abs(ours), -1).dataSync(); // [B·T]
    mask
      .dataSync()
      .forEach((m, i) => (m === 0 ? expect(perPosition[i]).toBe(0) : expect(perPosition[i]).toBeGreaterThan(0)));
  });

  it('an all-zero mask gives 0 and zero gradients; large logits stay finite', (ctx) => {
    if (!ready()) ctx.skip();
    const { logits, targets } = randomCase(4, 1, 4, 5);
    const zero = tf.zeros([1, 4]) as tf.Tensor2D;
    expect(maskedCrossEntropy(logits, targets, zero).dataSync()[0]).toBe(0);
    expect(
      tf
        .max(tf.abs(tf.grad((x: tf.Tensor) => maskedCrossEntropy(x as tf.Tensor3D, targets, zero))(logits)))
        .dataSync()[0],
    ).toBe(0);
    const huge = tf.mul(logits, 1000) as tf.Tensor3D; // logits in the thousands: exp would overflow without the max shift
    const grad = tf.grad((x: tf.Tensor) =>
      maskedCrossEntropy(x as tf.Tensor3D, targets, tf.ones([1, 4]) as tf.Tensor2D),
    )(huge);
    expect(Number.isFinite(maskedCrossEntropy(huge, targets, tf.ones([1, 4]) as tf.Tensor2D).dataSync()[0])).toBe(true);
    expect(grad.dataSync().every(Number.isFinite)).toBe(true);
  });

  it('leaks nothing, with or without a gradient tape', async (ctx) => {
    if (!ready()) ctx.skip();
    const { logits, targets, mask } = randomCase(5, 2, 3, 6);
    const w = tf.variable(tf.ones([6]), true, `loss-leak-${tf.getBackend()}`);
    await expectNoLeak(() => tf.tidy(() => maskedCrossEntropy(logits, targets, mask)).dispose());
    await expectNoLeak(() => {
      const { value, grads } = tf.variableGrads(
        () => maskedCrossEntropy(tf.mul(logits, w) as tf.Tensor3D, targets, mask),
        [w],
      );
      value.dispose();
      tf.dispose(Object.values(grads));
    });
    w.dispose();
  });
});
