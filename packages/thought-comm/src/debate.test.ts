import * as tf from '@tensorflow/tfjs-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { initBackend, Rng, type Example } from '@telepath/core';
import { expectNoLeak, toyAdditionExamples } from '@telepath/core/testing';
import { DEFAULT_AGENTS_EXPERIMENT_CONFIG } from './agents-config.js';
import type { Agent } from './agents.js';
import { createComm, type CommModule } from './model.js';
import { DEFAULT_READOUT_CONFIG } from './config.js';
import { agree, independentRound, majority, runDebate, scoreRound } from './debate.js';
import type { Autoencoder } from './autoencoder.js';
import { structureFromStrengths } from './structure.js';
import { tinyAgents, tinyAutoencoder } from './testing.js';

beforeAll(async () => {
  await initBackend('cpu', { quiet: true });
});

describe('votes and scores', () => {
  it('majority takes the most frequent answer (whitespace ignored), ties go to the lowest agent', () => {
    expect(majority(['1+2', '3', '1 + 2'])).toBe('1+2');
    expect(majority(['a', 'b', 'c'])).toBe('a');
    expect(majority(['a', 'b', 'b'])).toBe('b');
    expect(agree(['7', ' 7', '7 '])).toBe(true);
    expect(agree(['7', '7', '8'])).toBe(false);
  });

  it('scores agents, the majority and consensus per round', () => {
    const ex: Example[] = ['4', '5', '6'].map((answer, i) => ({ id: `e${i}`, question: '', steps: [], answer }));
    const isCorrect = (e: Example, a: string) => (e.answer === a ? 1 : 0);
    const s = scoreRound(
      ex,
      [
        ['4', '5', '0'],
        ['4', '1', '0'],
        ['9', '5', '0'],
      ],
      isCorrect,
    );
    expect(s.agents).toEqual([2 / 3, 1 / 3, 1 / 3]);
    expect(s.majority).toBeCloseTo(2 / 3); // e0: 4, 4, 9 → 4 ✓; e1: 5, 1, 5 → 5 ✓; e2: 0 ✗
    expect(s.consensus).toBeCloseTo(1 / 3); // only e2: 0, 0, 0
  });
});

describe('debate rounds on tiny agents', () => {
  const examples = toyAdditionExamples(5);
  let agents: Agent[];
  let ae: Autoencoder;
  let comm: CommModule;
  beforeAll(() => {
    agents = tinyAgents(3, examples);
    ae = tinyAutoencoder({}, 24, 3); // n_h = 3 agents × width 8
    const st = structureFromStrengths(
      new Float32Array(2 * 3),
      Float32Array.from([1, 0.9, 0.01, 1, 0.01, 0.8, 1, 0.7, 0.9]),
      3,
      2,
      3,
      DEFAULT_READOUT_CONFIG,
    );
    comm = createComm(st, { ...DEFAULT_AGENTS_EXPERIMENT_CONFIG.adapter, hidden: 4 }, [8, 8, 8], [1, 1, 1], new Rng(0));
  });
  afterAll(() => {
    agents.forEach((a) => a.lm.dispose());
    ae.dispose();
    comm.dispose();
  });

  it('round 0 then R − 1 rounds with prefixes, for every control, without leaking tensors', async () => {
    const o = { maxNewTokens: 4, batchSize: 2 };
    const round0 = await expectNoLeak(() => independentRound(agents, examples, o));
    expect(round0.map((r) => r.answers.length)).toEqual([5, 5, 5]);
    for (const control of ['none', 'random', 'shuffle'] as const) {
      const d = await expectNoLeak(() =>
        runDebate(agents, ae, comm, examples, round0, { rounds: 3, layer: 1, control, rng: new Rng(3), ...o }),
      );
      expect(d.answers.length).toBe(3);
      expect(d.answers[0]).toEqual(round0.map((r) => r.answers));
      for (const round of d.answers) expect(round.map((a) => a.length)).toEqual([5, 5, 5]);
    }
  });
});
