import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as tf from '@tensorflow/tfjs-core';
import { initBackend, Rng, train } from '@telepath/core';
import { exampleChars, singleSolutionGuess, type CountdownMeta } from '@telepath/tasks';
import { beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_COUNTDOWN_DATA, loadTaskData, type TaskData } from './data.js';
import { armData } from './arm-settings.js';
import { validateExperiment } from './experiment.js';
import { runExperiment } from '../running/run-experiment.js';
import { trainBatch } from '../running/batches.js';
import { MICRO_SETTINGS } from '../testing.js';

beforeAll(async () => {
  await initBackend('cpu', { quiet: true });
});

let variables = 0;

/** The questions of every step's batch, from core's train() with `data`'s batches (a scalar model: only the batches matter). */
async function batchesSeen(
  data: TaskData,
  steps: number,
  o: { checkpointPath?: string; stopAfter?: number } = {},
): Promise<Map<number, string[]>> {
  const seen = new Map<number, string[]>();
  const w = tf.variable(tf.scalar(1), true, `stream-w${++variables}`);
  let calls = 0;
  await train({
    params: new Map([['w', w]]),
    rng: new Rng(5).fork('train/sft'),
    config: { steps, logEvery: 1, checkpointEvery: 2 },
    checkpointPath: o.checkpointPath,
    loss: (at) => {
      seen.set(
        at.step,
        trainBatch(data, at.rng, at.step, 8).map((e) => e.question),
      );
      return tf.mul(w, w);
    },
    shouldStop: () => o.stopAfter !== undefined && ++calls >= o.stopAfter,
  });
  w.dispose();
  return seen;
}

describe('Countdown data generated on the fly', () => {
  const settings = {
    ...DEFAULT_COUNTDOWN_DATA,
    n: 3,
    trainCount: 50,
    testCount: 20,
    stream: true,
    reasoning: 'state' as const,
    warmupShare: 0.25,
    warmupSteps: 3,
  };

  it('gives every step fresh batches, the same from the same seed and across a resume', async () => {
    const data = await loadTaskData('countdown', settings);
    expect(data.trainBatch).toBeDefined();
    const full = await batchesSeen(data, 8);
    expect(new Set([...full.values()].flat()).size).toBeGreaterThan(40); // 8 steps × 6 instances (+ facts), hardly a repeat
    expect(await batchesSeen(await loadTaskData('countdown', settings), 8)).toEqual(full);
    // Stopped after 3 steps, then resumed from the checkpoint by a new train() call.
    const dir = mkdtempSync(join(tmpdir(), 'stream-'));
    const first = await batchesSeen(data, 8, { checkpointPath: join(dir, 'ck'), stopAfter: 3 });
    expect([...first.keys()]).toEqual([0, 1, 2]);
    const rest = await batchesSeen(data, 8, { checkpointPath: join(dir, 'ck') });
    expect([...rest.keys()]).toEqual([3, 4, 5, 6, 7]);
    expect(new Map([...first, ...rest])).toEqual(full);
    // The warm-up: a quarter of the first 3 batches are facts ("a op b="), none later.
    expect(full.get(0)!.filter((q) => q.endsWith('=')).length).toBe(2);
    expect(full.get(3)!.filter((q) => q.endsWith('=')).length).toBe(0);
  });

  it('keeps test instances out of the stream and writes train and test in the data format', async () => {
    const data = await loadTaskData('countdown', { ...settings, numberFormat: 'reversed' });
    expect(data.test.every((e) => (e.meta as CountdownMeta).numberFormat === 'reversed' && /\[/.test(e.steps[0]))).toBe(
      true,
    );
    expect(data.train[0].steps[0]).toMatch(/^\d+[-+*/]\d+=\d+ \[[\d ]+\]$/);
    const fixed = await loadTaskData('countdown', { ...DEFAULT_COUNTDOWN_DATA, trainCount: 50 });
    expect(fixed.trainBatch).toBeUndefined(); // no stream, no warm-up: batches come from the fixed list as before
    const warm = await loadTaskData('countdown', {
      ...DEFAULT_COUNTDOWN_DATA,
      trainCount: 50,
      warmupShare: 0.5,
      warmupSteps: 1,
    });
    const batch = warm.trainBatch!(new Rng(0), 0, 8);
    expect(batch.filter((e) => (e.meta as CountdownMeta).fact).length).toBe(4);
    expect(batch.filter((e) => !(e.meta as CountdownMeta).fact).every((e) => warm.train.includes(e))).toBe(true);
  });

  it("hands a guessing search's singleSolutionShare to its stream", async () => {
    const guess = {
      ...settings,
      n: 4,
      testCount: 5,
      reasoning: 'search-guess' as const,
      searchOrder: 'products-last' as const,
      searchBacks: 12,
      numberFormat: 'reversed' as const,
      warmupShare: 0,
    };
    const single = (d: TaskData) =>
      d.trainBatch!(new Rng(2).fork('step/0'), 0, 24).map((e) => singleSolutionGuess(e, 'reversed'));
    expect(single(await loadTaskData('countdown', { ...guess, singleSolutionShare: 1 })).every(Boolean)).toBe(true);
    expect(single(await loadTaskData('countdown', guess)).every(Boolean)).toBe(false); // about half as drawn
  });

  it('arms may override the data settings; bad values name the arm and key', () => {
    const exp = validateExperiment(
      {
        name: 'x',
        ...MICRO_SETTINGS,
        arms: [
          { name: 'cot', method: 'cot', config: { steps: 1 } },
          { name: 'cot-state', method: 'cot', config: { steps: 1 }, data: { reasoning: 'state' } },
        ],
      },
      'x.json',
    );
    expect(armData(exp, exp.arms[0])).toBe(exp.data);
    expect(armData(exp, exp.arms[1])).toMatchObject({ n: 3, trainCount: 40, reasoning: 'state' });
    const bad = (data: unknown) => () =>
      validateExperiment(
        { name: 'x', ...MICRO_SETTINGS, arms: [{ name: 'a', method: 'cot', config: {}, data }] },
        'x.json',
      );
    expect(bad({ reasoning: 'essay' })).toThrow(
      /arms\[0\] \(a\) data.reasoning: expected one of steps, state, search, search-check, search-judged, search-guided, search-guess, got "essay"/,
    );
    expect(bad({ nn: 3 })).toThrow(/unknown config key "nn"/);
    expect(bad({ warmupShare: 2 })).toThrow(/data.warmupShare: expected a share in 0..1/);
    expect(bad({ searchOrder: 'random' })).toThrow(
      /data.searchOrder: expected one of closest, listed, products-last, got "random"/,
    );
    expect(bad({ factOps: 'divisions' })).toThrow(/data.factOps: expected one of moves, every-op, got "divisions"/);
    expect(bad({ rejectInexact: 'yes' })).toThrow(/data: config key "rejectInexact"/);
    expect(bad({ rejectInexact: true, reasoning: 'search-check' })).toThrow(
      /data.rejectInexact: rejected divisions are written by a search trace in the 'listed' or 'products-last' order \(data.reasoning "search-check", data.searchOrder "closest"\)/,
    );
    expect(bad({ rejectInexact: true, reasoning: 'state', searchOrder: 'listed' })).toThrow(/data.rejectInexact/);
    expect(bad({ rejectInexact: true, reasoning: 'search-check', searchOrder: 'products-last' })).not.toThrow();
    expect(bad({ judgeLongProducts: true, reasoning: 'search-guided', searchOrder: 'listed' })).toThrow(
      /data.judgeLongProducts: judged products are written by a search trace in the 'products-last' order \(data.reasoning "search-guided", data.searchOrder "listed"\)/,
    );
    expect(bad({ judgeLongProducts: true, reasoning: 'search-guided', searchOrder: 'products-last' })).not.toThrow();
    const guess = { n: 4, stream: true, reasoning: 'search-guess' };
    expect(bad({ ...guess, singleSolutionShare: 1.5 })).toThrow(
      /data.singleSolutionShare: expected a share in 0..1, got 1.5/,
    );
    expect(bad({ ...guess, reasoning: 'search-guided', singleSolutionShare: 0.5 })).toThrow(
      /data.singleSolutionShare: .* needs data.reasoning "search-guess", data.stream true and data.n ≥ 4 \(got "search-guided", stream true, n 4\)/,
    );
    expect(bad({ ...guess, stream: false, singleSolutionShare: 0.5 })).toThrow(/data.singleSolutionShare/);
    expect(bad({ ...guess, n: 3, singleSolutionShare: 0.5 })).toThrow(/data.singleSolutionShare/);
    expect(bad({ ...guess, singleSolutionShare: 0.5 })).not.toThrow();
  });

  it('trains an arm on the stream end to end, recording its own data settings', async () => {
    const runs = mkdtempSync(join(tmpdir(), 'lab-stream-'));
    const exp = validateExperiment(
      {
        name: 'micro-stream',
        ...MICRO_SETTINGS,
        data: { ...MICRO_SETTINGS.data, stream: true, warmupShare: 0.5, warmupSteps: 2 },
        arms: [
          {
            name: 'cot-search',
            method: 'cot',
            config: { variant: 'cot', steps: 3, maxNewTokens: 8 },
            data: { reasoning: 'search' },
          },
        ],
      },
      'micro-stream.json',
    );
    const r = await runExperiment(exp, { runsDir: runs, quiet: true, log: () => {} });
    expect(r.results).toHaveLength(1);
    const resolved = JSON.parse(
      readFileSync(join(runs, 'micro-stream', 'cot-search', 's0', 'config.resolved.json'), 'utf8'),
    );
    expect(resolved.data).toMatchObject({ stream: true, reasoning: 'search', warmupShare: 0.5 });
    expect(readFileSync(join(runs, 'micro-stream', 'cot-search', 's0', 'tokenizer.json'), 'utf8')).toContain('back');
  });

  it('sizes the context to the longest example the stream can draw, not only to its sample', async () => {
    const settings = {
      ...MICRO_SETTINGS,
      data: { ...MICRO_SETTINGS.data, stream: true, reasoning: 'search', searchBacks: 12 },
    };
    const data = await loadTaskData('countdown', armData(settings, {}));
    const chars = Math.max(...[...data.train, ...data.test].map(exampleChars));
    expect(data.streamedChars).toBe(chars);
    // every streamed example is within the bound (instances past it are redrawn)
    const drawn = Array.from({ length: 50 }, (_, step) => trainBatch(data, new Rng(step), step, 8)).flat();
    expect(Math.max(...drawn.map(exampleChars))).toBeLessThanOrEqual(chars);

    const arm = { name: 'cot-search', method: 'cot', config: { variant: 'cot', steps: 1, maxNewTokens: 8 } };
    const runs = mkdtempSync(join(tmpdir(), 'lab-stream-context-'));
    const sized = validateExperiment({ name: 'sized', ...settings, arms: [arm] }, 'sized.json');
    await runExperiment(sized, { runsDir: runs, quiet: true, log: () => {} });
    const model = JSON.parse(readFileSync(join(runs, 'sized', 'cot-search', 's0', 'model.json'), 'utf8'));
    expect(model.contextLength).toBeGreaterThanOrEqual(chars + 5); // the five framing tokens around the text

    const short = validateExperiment(
      { name: 'short', ...settings, lm: { ...settings.lm, contextLength: chars + 4 }, arms: [arm] },
      'short.json',
    );
    await expect(runExperiment(short, { runsDir: runs, quiet: true, log: () => {} })).rejects.toThrow(
      `arm cot-search: lm.contextLength ${chars + 4} is shorter than the longest example the training stream can draw (${chars + 5} tokens at most); set it to at least ${chars + 37}`,
    );
  });
});
