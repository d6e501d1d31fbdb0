/**
 * RL phases through the lab: the reward built from the task's scoring reaches the method, and a
 * phase's own optimizer settings replace the experiment's (CoLaR's GRPO phase, micro sizes).
 */
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { initBackend } from '@telepath/core';
import { countdownTask, generateCountdown } from '@telepath/tasks';
import { beforeAll, describe, expect, it } from 'vitest';
import { validateExperiment } from '../experiment/experiment.js';
import { rewardFromTask } from './build-arm.js';
import { runExperiment } from './run-experiment.js';
import { metricLines, MICRO_SETTINGS } from '../testing.js';

beforeAll(async () => {
  await initBackend('cpu', { quiet: true });
});

describe('rewards and per-phase optimizer settings', () => {
  it('rewardFromTask scores an answer as evaluation does: 1 correct, 0 wrong', () => {
    const [ex] = generateCountdown({ n: 3, count: 1, seed: 0, split: 'train' });
    const reward = rewardFromTask(countdownTask);
    expect(reward(ex, ex.answer)).toBe(1);
    expect(reward(ex, '1+1')).toBe(0);
    expect(reward(ex, '')).toBe(0);
    const throwing = rewardFromTask({
      ...countdownTask,
      isCorrect: () => {
        throw new TypeError('malformed');
      },
    });
    expect(throwing(ex, '3.+')).toBe(0);
  });

  it('a CoLaR arm initialised from CoT runs SFT, then GRPO with the task reward at its own learning rate', async () => {
    const runs = mkdtempSync(join(tmpdir(), 'lab-rl-'));
    const exp = validateExperiment(
      {
        name: 'micro-rl',
        ...MICRO_SETTINGS,
        data: { ...MICRO_SETTINGS.data, testCount: 4 },
        eval: { batchSize: 4, maxNewTokens: 24, controls: ['zero'] },
        arms: [
          { name: 'cot', method: 'cot', config: { variant: 'cot', steps: 2 } },
          {
            name: 'colar',
            method: 'colar',
            initFrom: 'cot',
            config: {
              sftSteps: 2,
              rlSteps: 2,
              rlLr: 1e-5,
              groupSize: 2,
              rolloutQuestions: 2,
              rlMinibatch: 2,
              maxLatents: 4,
              maxNewTokens: 8,
              compressionFactor: 2,
            },
          },
        ],
      },
      'micro-rl.json',
    );
    const res = await runExperiment(exp, { runsDir: runs, quiet: true, log: () => {} });
    expect(res.interrupted).toBe(false);
    const dir = join(runs, 'micro-rl', 'colar', 's0');
    for (const f of ['sft.ckpt', 'rl.ckpt', 'latents.bin', 'summary.json'])
      expect(existsSync(join(dir, f)), f).toBe(true);
    const metrics = metricLines(dir);
    const rlLr = metrics.filter((m) => 'rl/lr' in m).map((m) => m['rl/lr']);
    const sftLr = metrics.filter((m) => 'sft/lr' in m).map((m) => m['sft/lr']);
    expect(rlLr.length).toBeGreaterThan(0);
    expect(Math.max(...rlLr)).toBeLessThanOrEqual(1e-5);
    expect(Math.max(...sftLr)).toBeGreaterThan(1e-4);
    const summary = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8'));
    expect(summary.reasoningKind).toBe('latents');
    expect(summary.reasoningLength).toBeGreaterThanOrEqual(1);
    expect(summary.controls.zero.total).toBe(4);
  });
});
