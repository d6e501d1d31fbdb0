/**
 * Faults that used to end in a wrong number reported as right (issue 26), each reproduced and
 * answered by a loud error naming the file or key: bits flipped in a checkpoint's header, an
 * edited step, out-of-range training settings, a full disk, a truncated JSON record, a crash that
 * leaves metrics.jsonl torn or ahead of the checkpoint, training time across a resume.
 */
import { createHash } from 'node:crypto';
import { promises as fsp, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as tf from '@tensorflow/tfjs-core';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { writeFileAtomic } from './atomic.js';
import { initBackend } from './backend.js';
import { readCheckpoint, saveCheckpoint } from './checkpoint.js';
import { readJsonFile, UserError } from './errors.js';
import { AdamW, DEFAULT_OPTIM_CONFIG } from './optim.js';
import { Rng } from './rng.js';
import { readJsonl, RunRecord } from './run-record.js';
import { readTensorFile } from './tensor-file.js';
import { tinyLm } from './testing.js';
import { train, type TrainConfig } from './train.js';

beforeAll(async () => {
  await initBackend('cpu', { quiet: true });
});
afterEach(() => {
  vi.restoreAllMocks();
});

const dir = mkdtempSync(join(tmpdir(), 'integrity-'));
const OPTIM = { ...DEFAULT_OPTIM_CONFIG, warmupSteps: 1 };
const lossOf = (lm: ReturnType<typeof tinyLm>) => () =>
  tf.tidy(
    () => tf.mean(tf.square(lm.forward(lm.embed(tf.tensor2d([[1, 2, 3, 4]], [1, 4], 'int32'))).logits)) as tf.Scalar,
  );

async function smallCheckpoint(file: string, step = 100): Promise<Buffer> {
  const lm = tinyLm({ layers: 1, width: 4, heads: 1, vocabSize: 6, contextLength: 4 });
  const opt = new AdamW(DEFAULT_OPTIM_CONFIG, lm.params);
  await saveCheckpoint({
    path: file,
    params: lm.params,
    modelConfig: lm.config,
    step,
    optimizer: opt,
    rng: new Rng(1).state(),
    extra: { losses: [] },
  });
  opt.dispose();
  lm.dispose();
  return readFileSync(file);
}

describe('checkpoints are checked whole', () => {
  it('a bit flipped in a tensor offset of the header is refused, naming the file', async () => {
    const good = await smallCheckpoint(join(dir, 'offset.ckpt'));
    const at = good.indexOf('"offset":') + '"offset":'.length + 1; // a digit of the second tensor's offset…
    const second = good.indexOf('"offset":', at) + '"offset":'.length;
    const bad = Buffer.from(good);
    bad[second] ^= 0x01; // "0"… → "1"…: every weight would be read from the wrong place
    writeFileSync(join(dir, 'offset-flip.ckpt'), bad);
    await expect(readCheckpoint(join(dir, 'offset-flip.ckpt'))).rejects.toThrow(
      /offset-flip\.ckpt is corrupt .*sha256/,
    );
  });

  it('the header\'s "step": 100 edited to 300 is refused; a checkpoint past the run\'s steps is too', async () => {
    const good = await smallCheckpoint(join(dir, 'step.ckpt'), 100);
    const edited = Buffer.from(good.toString('latin1').replace('"step":100', '"step":300'), 'latin1');
    expect(edited.equals(good)).toBe(false);
    writeFileSync(join(dir, 'step-edit.ckpt'), edited);
    await expect(readCheckpoint(join(dir, 'step-edit.ckpt'))).rejects.toThrow(/step-edit\.ckpt is corrupt/);

    // A sound checkpoint at step 300 given to a 100-step run: not resumed at 301 and recorded done.
    const lm = tinyLm({ layers: 1, width: 4, heads: 1, vocabSize: 6, contextLength: 4 });
    await saveCheckpoint({ path: join(dir, 'long.ckpt'), params: lm.params, modelConfig: lm.config, step: 300 });
    await expect(
      train({
        params: lm.params,
        rng: new Rng(0),
        config: { steps: 100, optim: OPTIM },
        loss: lossOf(lm),
        modelConfig: lm.config,
        checkpointPath: join(dir, 'long.ckpt'),
      }),
    ).rejects.toThrow(/long\.ckpt: checkpoint at step 300, past this run's 100 steps/);
    lm.dispose();
  });

  it('fuzz: 200 random bit flips in a small checkpoint are each refused or leave the weights bit-identical', async () => {
    const file = join(dir, 'fuzz.ckpt');
    const good = await smallCheckpoint(file);
    const reference = await readCheckpoint(file);
    const rng = new Rng(26);
    let refused = 0;
    for (let i = 0; i < 200; i++) {
      const bad = Buffer.from(good);
      const bit = rng.int(good.length * 8);
      bad[bit >> 3] ^= 1 << (bit & 7);
      const flipped = join(dir, 'fuzz-flip.ckpt');
      writeFileSync(flipped, bad);
      try {
        const ck = await readCheckpoint(flipped);
        expect(ck.meta).toEqual(reference.meta);
        for (const [name, t] of reference.tensors)
          expect(Buffer.from(ck.tensors.get(name)!.values.buffer).equals(Buffer.from(t.values.buffer))).toBe(true);
      } catch (e) {
        expect((e as Error).message).toContain('fuzz-flip.ckpt');
        refused++;
      }
    }
    expect(refused).toBe(200); // one checksum over the whole file: no flip goes unseen
  });

  it('a file of the first format (data-only sha256) still reads, and a flipped offset in it is refused by the layout check', async () => {
    const data = Buffer.from(new Float32Array([1, 2, 3, 4, 5, 6]).buffer);
    const v1 = (tensors: object[]) => {
      const header = Buffer.from(
        JSON.stringify({ meta: { old: true }, tensors, dataSha256: createHash('sha256').update(data).digest('hex') }),
      );
      const prefix = Buffer.alloc(12);
      prefix.write('TLPTNSR1', 0, 'ascii');
      prefix.writeUInt32LE(header.length, 8);
      return Buffer.concat([prefix, header, Buffer.alloc((8 - ((12 + header.length) % 8)) % 8), data]);
    };
    writeFileSync(
      join(dir, 'v1.bin'),
      v1([
        { name: 'a', dtype: 'float32', shape: [2], offset: 0, bytes: 8 },
        { name: 'b', dtype: 'float32', shape: [4], offset: 8, bytes: 16 },
      ]),
    );
    expect(Array.from((await readTensorFile(join(dir, 'v1.bin'))).tensors.get('b')!.values)).toEqual([3, 4, 5, 6]);
    writeFileSync(
      join(dir, 'v1-flip.bin'),
      v1([
        { name: 'a', dtype: 'float32', shape: [2], offset: 0, bytes: 8 },
        { name: 'b', dtype: 'float32', shape: [4], offset: 0, bytes: 16 },
      ]),
    );
    await expect(readTensorFile(join(dir, 'v1-flip.bin'))).rejects.toThrow(
      /v1-flip\.bin is corrupt .*offset 0, expected 8/,
    );
  });
});

describe('training settings out of range are errors naming the key and the range', () => {
  let lm: ReturnType<typeof tinyLm>;
  beforeAll(() => {
    lm = tinyLm({ layers: 1, width: 4, heads: 1, vocabSize: 6, contextLength: 4 });
  });
  const run = (config: Partial<TrainConfig>) =>
    train({
      params: lm.params,
      rng: new Rng(0),
      config: { steps: 2, ...config, optim: { ...OPTIM, ...config.optim } },
      loss: lossOf(lm),
    });
  it.each([
    [{ steps: -5 }, /train\.steps must be an integer ≥ 0, got -5/],
    [{ steps: 10.5 }, /train\.steps must be an integer ≥ 0, got 10\.5/],
    [{ optim: { ...OPTIM, lr: -1 } }, /train\.optim\.lr must be a finite number > 0, got -1/],
    [
      { optim: { ...OPTIM, clipNorm: -1 } },
      /train\.optim\.clipNorm \(0: no clipping\) must be a finite number ≥ 0, got -1/,
    ],
    [{ checkpointEvery: -1 }, /train\.checkpointEvery \(0: only at the end\) must be an integer ≥ 0, got -1/],
    [{ logEvery: 0 }, /train\.logEvery must be an integer ≥ 1, got 0/],
    [{ optim: { ...OPTIM, beta2: 1 } }, /train\.optim\.beta2 must be a finite number ≥ 0 and < 1, got 1/],
    [{ optim: { ...OPTIM, warmupSteps: 2.5 } }, /warmupSteps must be an integer ≥ 0/],
  ] as [Partial<TrainConfig>, RegExp][])('%j', async (config, message) => {
    await expect(run(config)).rejects.toThrow(message);
  });
});

describe('I/O errors name their file and leave no temporary file', () => {
  it('a full disk (ENOSPC) mid-write names the target and removes the temp file; the old file stays', async () => {
    const d = mkdtempSync(join(tmpdir(), 'enospc-'));
    const target = join(d, 'state.ckpt');
    await writeFileAtomic(target, 'old');
    const open = fsp.open.bind(fsp);
    vi.spyOn(fsp, 'open').mockImplementation(async (...args: Parameters<typeof fsp.open>) => {
      const handle = await open(...args);
      handle.writeFile = () =>
        Promise.reject(Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' }));
      return handle;
    });
    const err = await writeFileAtomic(target, 'new').catch((e: unknown) => e as Error & { code?: string });
    expect(err).toBeInstanceOf(UserError);
    expect(err!.message).toBe(`cannot write ${target}: ENOSPC: no space left on device, write`);
    expect(err!.code).toBe('ENOSPC');
    expect(readdirSync(d)).toEqual(['state.ckpt']);
    expect(readFileSync(target, 'utf8')).toBe('old');
  });

  it('a truncated JSON record is an error naming the file, not a bare SyntaxError', async () => {
    const f = join(dir, 'summary.json');
    writeFileSync(f, '{"accuracy": 0.29, "corr');
    await expect(readJsonFile(f)).rejects.toThrow(
      new RegExp(`^${f.replace(/[.]/g, '\\.')} is truncated or not valid JSON`),
    );
    writeFileSync(f, '');
    await expect(readJsonFile(f)).rejects.toThrow(/summary\.json is empty/);
    await expect(readJsonFile(join(dir, 'absent.json'))).rejects.toThrow(/cannot read .*absent\.json: ENOENT/);
  });
});

describe('metrics and training time across a crash', () => {
  it('resuming a record repairs a torn last line, so the next line is not glued to it', async () => {
    const d = mkdtempSync(join(tmpdir(), 'torn-'));
    const rec = await RunRecord.open(d, { a: 1 });
    await rec.log(1, { 'sft/loss': 2 });
    await fsp.appendFile(rec.file('metrics.jsonl'), '{"step": 2, "sft/lo'); // killed mid-append
    const again = await RunRecord.open(d, { a: 1 }, { resume: true });
    await again.log(2, { 'sft/loss': 1.5 });
    expect(await readJsonl(again.file('metrics.jsonl'))).toEqual([
      { step: 1, 'sft/loss': 2 },
      { step: 2, 'sft/loss': 1.5 },
    ]);
  });

  it('a run killed after its last checkpoint logs each step once, and trainSeconds counts the time before the crash', async () => {
    const d = mkdtempSync(join(tmpdir(), 'crash-'));
    const ckpt = join(d, 'sft.ckpt');
    const config = { steps: 6, logEvery: 1, checkpointEvery: 2, optim: OPTIM };
    const segment = async (crashAt: number) => {
      const lm = tinyLm({ layers: 1, width: 4, heads: 1, vocabSize: 6, contextLength: 4 });
      const rec = await RunRecord.open(d, { a: 1 }, { resume: true });
      try {
        return await train({
          params: lm.params,
          rng: new Rng(0),
          config,
          modelConfig: lm.config,
          checkpointPath: ckpt,
          loss: (at) => {
            if (at.step === crashAt) throw new Error('killed'); // the process dies: no checkpoint at the stop
            return lossOf(lm)();
          },
          onStart: async (start) => {
            await rec.dropMetrics((l) => typeof l['sft/loss'] === 'number' && (l.step as number) > start);
          },
          onLog: (l) => void rec.log(l.step, { 'sft/loss': l.loss }),
        });
      } finally {
        await rec.flush();
        lm.dispose();
      }
    };
    // Steps 1-3 logged, the last checkpoint is step 2's: step 3 is logged but lost.
    await expect(segment(3)).rejects.toThrow('killed');
    expect((await RunRecord.readMetrics(d)).map((l) => l.step)).toEqual([1, 2, 3]);
    const before = ((await readCheckpoint(ckpt)).meta.extra as { seconds: number }).seconds;
    expect(before).toBeGreaterThan(0);
    const resumed = await segment(-1);
    expect(resumed.startStep).toBe(2);
    expect(resumed.seconds).toBeGreaterThan(before);
    expect((await RunRecord.readMetrics(d)).map((l) => l.step)).toEqual([1, 2, 3, 4, 5, 6]);
  });
});
