import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as tf from '@tensorflow/tfjs-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { initBackend } from './backend.js';
import { readCheckpoint, restoreCheckpoint, saveCheckpoint } from './checkpoint.js';
import { AdamW, DEFAULT_OPTIM_CONFIG } from './optim.js';
import { Rng } from './rng.js';
import { readTensorFile, writeTensorFile } from './tensor-file.js';
import { tinyLm } from './testing.js';

beforeAll(async () => {
  await initBackend('cpu', { quiet: true });
});

const dir = mkdtempSync(join(tmpdir(), 'ckpt-'));

describe('checkpoints', () => {
  it('round-trip weights, optimiser moments, step, rng state and extra metadata', async () => {
    const lm = tinyLm({}, 1);
    const opt = new AdamW(DEFAULT_OPTIM_CONFIG, lm.params);
    opt.apply(new Map([...lm.params].map(([n, v]) => [n, tf.onesLike(v)])), 0.1);
    const rng = new Rng(3);
    rng.float();
    const path = join(dir, 'a.ckpt');
    await saveCheckpoint({
      path,
      params: lm.params,
      modelConfig: lm.config,
      step: 7,
      optimizer: opt,
      rng: rng.state(),
      extra: { stage: 2 },
    });

    const other = tinyLm({}, 2);
    const opt2 = new AdamW(DEFAULT_OPTIM_CONFIG, other.params);
    const ck = await readCheckpoint(path);
    restoreCheckpoint(path, ck, { params: other.params, modelConfig: other.config, optimizer: opt2 });
    expect(ck.meta.step).toBe(7);
    expect(ck.meta.extra).toEqual({ stage: 2 });
    expect(opt2.t).toBe(1);
    for (const [name, v] of lm.params)
      expect(Array.from(other.params.get(name)!.dataSync())).toEqual(Array.from(v.dataSync()));
    expect(Array.from(opt2.v.get('wte')!.dataSync())).toEqual(Array.from(opt.v.get('wte')!.dataSync()));
    const r2 = new Rng(3);
    r2.restore(ck.meta.rng!);
    expect(r2.float()).toBe(rng.float());
    [opt, opt2].forEach((o) => o.dispose());
    [lm, other].forEach((m) => m.dispose());
  });

  it('refuses a checkpoint of another model config, naming the difference', async () => {
    const lm = tinyLm();
    const path = join(dir, 'b.ckpt');
    await saveCheckpoint({ path, params: lm.params, modelConfig: lm.config, step: 1 });
    const wider = tinyLm({ width: 12 });
    const ck = await readCheckpoint(path);
    expect(() => restoreCheckpoint(path, ck, { params: wider.params, modelConfig: wider.config })).toThrow(
      /model config differs .*width: checkpoint 8, model 12/,
    );
    [lm, wider].forEach((m) => m.dispose());
  });

  it('reads an LM config saved before lm.positions existed as learned positions, and refuses it for a rotary model', async () => {
    const lm = tinyLm();
    const path = join(dir, 'old.ckpt');
    const { positions: _dropped, ...oldConfig } = lm.config;
    await saveCheckpoint({ path, params: lm.params, modelConfig: oldConfig, step: 1 });
    const same = tinyLm({}, 5);
    const ck = await readCheckpoint(path);
    restoreCheckpoint(path, ck, { params: same.params, modelConfig: same.config });
    expect(Array.from(same.params.get('wpe')!.dataSync())).toEqual(Array.from(lm.params.get('wpe')!.dataSync()));
    const rotary = tinyLm({ positions: 'rotary' });
    expect(() => restoreCheckpoint(path, ck, { params: rotary.params, modelConfig: rotary.config })).toThrow(
      /positions: checkpoint "learned", model "rotary"/,
    );
    [lm, same, rotary].forEach((m) => m.dispose());
  });

  it('detects truncated, corrupted and foreign files with the path in the message', async () => {
    const path = join(dir, 'c.bin');
    await writeTensorFile(
      path,
      { x: { dtype: 'float32', shape: [2, 2], values: new Float32Array([1, 2, 3, 4]) } },
      { hello: 1 },
    );
    const good = readFileSync(path);
    expect((await readTensorFile(path)).meta).toEqual({ hello: 1 });

    writeFileSync(join(dir, 'trunc.bin'), good.subarray(0, good.length - 3));
    await expect(readTensorFile(join(dir, 'trunc.bin'))).rejects.toThrow(/trunc\.bin is corrupt .*truncated/);
    const flipped = Buffer.from(good);
    flipped[flipped.length - 1] ^= 0xff;
    writeFileSync(join(dir, 'flip.bin'), flipped);
    await expect(readTensorFile(join(dir, 'flip.bin'))).rejects.toThrow(/flip\.bin is corrupt .*sha256/);
    writeFileSync(join(dir, 'text.bin'), 'hello world, not a checkpoint');
    await expect(readTensorFile(join(dir, 'text.bin'))).rejects.toThrow(/text\.bin is corrupt .*magic/);
    await expect(readCheckpoint(path)).rejects.toThrow(/c\.bin: not a Telepath checkpoint/);
    await expect(readCheckpoint(join(dir, 'nope.bin'))).rejects.toThrow(/cannot read .*nope\.bin/);
  });

  it('leaves no temporary files behind', async () => {
    const { readdirSync } = await import('node:fs');
    expect(readdirSync(dir).filter((f) => f.includes('.tmp-'))).toEqual([]);
  });
});
