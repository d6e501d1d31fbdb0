/**
 * Decoding time measured interleaved: the arms take turns batch by batch in a rotating order, a
 * warm-up batch is not timed, and the time ratio to the first arm carries a bootstrap interval.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { initBackend, type Example } from '@telepath/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { timeDecoding, type TimedArm } from './decode-time.js';
import { decodeTimeCommand } from '../commands/decode-time.js';
import { validateExperiment } from '../experiment/experiment.js';
import { runExperiment } from '../running/run-experiment.js';
import { MICRO_SETTINGS } from '../testing.js';

const tmp = mkdtempSync(join(tmpdir(), 'lab-decode-time-'));
beforeAll(async () => void (await initBackend('cpu', { quiet: true })));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const examples: Example[] = Array.from({ length: 24 }, (_, i) => ({
  id: `q${i}`,
  question: `q${i}`,
  steps: [],
  answer: '',
}));

/** A clock the arms below advance: `msPerQuestion` per question, plus a stall at one batch. */
let now = 0;
const clock = () => now;

/** An arm that takes `msPerQuestion` of clock time per question (and `stall` more at batch `q8`), logging its calls. */
function waiting(label: string, msPerQuestion: number, calls: string[], stall = 0): TimedArm {
  return {
    label,
    settings: { maxNewTokens: 4, temperature: 0, topP: 1 },
    generate: async (batch) => {
      calls.push(`${label}:${batch[0].id}`);
      now += msPerQuestion * batch.length + (batch[0].id === 'q8' ? stall : 0);
      return batch.map((ex) => ({
        id: ex.id,
        answer: '',
        text: '',
        reasoningLength: label.length,
        reasoningKind: 'latents' as const,
      }));
    },
  };
}

describe('decode time', () => {
  it('interleaves the arms in a rotating order after an untimed warm-up, and measures their time ratio', async () => {
    const calls: string[] = [];
    const r = await timeDecoding([waiting('a', 1, calls), waiting('bbb', 3, calls, 36)], examples, {
      batchSize: 4,
      seed: 0,
      quiet: true,
      clock,
    });
    if (r === 'interrupted') throw new Error('interrupted');
    expect(calls.slice(0, 6)).toEqual(['a:q0', 'bbb:q0', 'a:q0', 'bbb:q0', 'bbb:q4', 'a:q4']); // warm-up, batch 0, batch 1
    expect(calls).toHaveLength(2 + 2 * 6);
    expect(r).toMatchObject({ questions: 24, batches: 6, batchSize: 4 });
    const [a, b] = r.rows;
    expect(a.ratio).toEqual({ value: 1, lo: 1, hi: 1 });
    expect(a.msPerExample).toBe(1);
    // bbb: 3 ms a question and one batch stalled 36 ms: (72 + 36) / 24 ms a question, 4.5 times a's.
    expect(b.msPerExample).toBeCloseTo(4.5, 12);
    expect(b.ratio.value).toBeCloseTo(4.5, 12);
    // Resampling the 6 batches: ratios from 3 (stall not drawn) to 12 (only the stall drawn).
    expect(b.ratio.lo).toBeGreaterThanOrEqual(3 - 1e-12);
    expect(b.ratio.lo).toBeLessThan(4.5);
    expect(b.ratio.hi).toBeGreaterThan(4.5);
    expect(b.ratio.hi).toBeLessThanOrEqual(12);
    expect([a.reasoningLength, b.reasoningLength]).toEqual([1, 3]);
    let polls = 0;
    expect(
      await timeDecoding([waiting('a', 0, [])], examples, {
        batchSize: 4,
        seed: 0,
        quiet: true,
        shouldStop: () => ++polls > 2,
      }),
    ).toBe('interrupted');
  });

  it(
    'telepath decode-time times finished arms on the same questions and refuses runs with other questions',
    { timeout: 120_000 },
    async () => {
      const arms = [
        { name: 'cot', method: 'cot', config: { variant: 'cot', steps: 2 } },
        {
          name: 'colar',
          method: 'colar',
          initFrom: 'cot',
          config: { sftSteps: 2, compressionFactor: 2, maxLatents: 6 },
        },
      ];
      const settings = { ...MICRO_SETTINGS, eval: { ...MICRO_SETTINGS.eval, curveEvery: 0 } };
      const runs = join(tmp, 'runs');
      await runExperiment(validateExperiment({ name: 'dt', ...settings, arms }, 'dt.json'), {
        runsDir: runs,
        quiet: true,
        log: () => {},
      });
      const other = validateExperiment(
        { name: 'dt-other', ...settings, data: { ...settings.data, seed: 1 }, arms: [arms[0]] },
        'o.json',
      );
      await runExperiment(other, { runsDir: runs, quiet: true, log: () => {} });
      const run = (exp: string, arm: string) => join(runs, exp, arm, 's0');
      const out = join(tmp, 'decode-time.json');
      expect(
        await decodeTimeCommand([
          run('dt', 'cot'),
          run('dt', 'colar'),
          '--questions',
          '5',
          '--batch',
          '2',
          '--out',
          out,
          '--json',
        ]),
      ).toBe(0);
      const result = JSON.parse(readFileSync(out, 'utf8'));
      expect(result).toMatchObject({ questions: 5, batches: 3, batchSize: 2 });
      expect(result.rows.map((r: { label: string }) => r.label)).toEqual(['dt/cot s0', 'dt/colar s0']);
      expect(result.rows[0].ratio.value).toBe(1);
      expect(result.rows[1].msPerExample).toBeGreaterThan(0);
      await expect(decodeTimeCommand([run('dt', 'cot'), run('dt-other', 'cot'), '--questions', '5'])).rejects.toThrow(
        /dt-other\/cot\/s0: its test questions differ from .*dt\/cot\/s0's \(at question 0\)/,
      );
      // Trained is enough (an evaluation still running has final.ckpt and no summary.json); untrained is not.
      rmSync(join(run('dt', 'colar'), 'summary.json'));
      expect(await decodeTimeCommand([run('dt', 'cot'), run('dt', 'colar'), '--questions', '2', '--json'])).toBe(0);
      rmSync(join(run('dt', 'colar'), 'final.ckpt'));
      await expect(decodeTimeCommand([run('dt', 'cot'), run('dt', 'colar')])).rejects.toThrow(
        /dt\/colar\/s0: this run has not finished training \(no final\.ckpt\)/,
      );
      await expect(decodeTimeCommand([run('dt', 'cot'), '--questions', '0'])).rejects.toThrow(
        /--questions: expected an integer ≥ 1, got "0"/,
      );
    },
  );
});
