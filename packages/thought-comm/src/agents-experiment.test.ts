import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { initBackend, type Example } from '@telepath/core';
import { expectNoLeak, toyAdditionExamples } from '@telepath/core/testing';
import { parseAgentsExperimentConfig, stateLayerOf } from './agents-config.js';
import { runAgentsExperiment } from './agents-experiment.js';
import { summariseStructure } from './agents-report.js';
import { structureFromSupport } from './structure.js';
import { agentsJson, agentsRows, agentsTableMarkdown } from './agents-report.js';
import { TINY_AGENTS_EXPERIMENT as TINY } from './testing.js';

beforeAll(async () => {
  await initBackend('cpu', { quiet: true });
});

describe('agents experiment config', () => {
  it('rejects unknown keys and choices, and reads the state at ⌊2L/3⌋ by default', () => {
    expect(() => parseAgentsExperimentConfig({ adapter: { prefixLenght: 2 } })).toThrow(/prefixLenght/);
    expect(() => parseAgentsExperimentConfig({ objectives: ['task', 'rl'] })).toThrow(/Expected one of: paper, task/);
    expect(() => parseAgentsExperimentConfig({ controls: ['zero'] })).toThrow(/Expected one of: random, shuffle/);
    expect(() => parseAgentsExperimentConfig({ adapter: { prefixPositions: 'before' } })).toThrow(
      /unknown prefixPositions "before". Expected one of: after, shared/,
    );
    expect(() => parseAgentsExperimentConfig({ agents: 1 })).toThrow(/agents must be ≥ 2/);
    expect(stateLayerOf({ stateLayer: -1 }, 28)).toBe(18); // third-party: hidden_states[int(28 · 0.667)]
    expect(stateLayerOf({ stateLayer: -1 }, 4)).toBe(2);
    expect(stateLayerOf({ stateLayer: 1 }, 4)).toBe(1);
  });
});

describe('agents experiment end to end on tiny agents', () => {
  const examples = toyAdditionExamples(30);
  const data = {
    train: examples.slice(0, 24),
    test: examples.slice(24),
    isCorrect: (ex: Example, a: string) => (ex.answer === a ? 1 : 0),
    hashes: { toy: 'x' },
  };
  const out = mkdtempSync(join(tmpdir(), 'tc-agents-'));
  const c = parseAgentsExperimentConfig(TINY);

  it('trains agents, autoencoder and both adapters, debates with controls, writes the record, leaks nothing', async () => {
    const r = await expectNoLeak(() => runAgentsExperiment(c, data, { outDir: out }));
    expect(r.interrupted).toBe(false);
    const s = r.seeds[0];
    expect(s.agentTrainExamples).toBe(12);
    expect(s.independent.agents).toHaveLength(3);
    expect(Object.keys(s.debates)).toEqual(['task', 'paper']);
    expect(Object.keys(s.debates.task)).toEqual(['none', 'random', 'shuffle']);
    expect(s.debates.paper.none).toHaveLength(2); // rounds 0 and 1
    expect(s.debates.task.none[0]).toEqual(s.independent);
    expect(s.alphaHistogram.reduce((a, b) => a + b, 0)).toBe(4);
    // The recovered structure beside the routing it produces.
    expect(s.structure.rule).toBe('relative');
    expect(Object.values(s.structure.thoughtsByAgents).reduce((a, b) => a + b, 0)).toBe(4);
    expect(s.structure.routedPerAgent).toHaveLength(3);
    expect(agentsTableMarkdown(agentsRows(r.seeds), r.seeds)).toContain(
      '| seed | read-off | thoughts by agents | thoughts routed to each agent |',
    );
    expect(s.agreementWeights.task).toHaveLength(4);
    const dir = join(out, 's0');
    for (const f of [
      'config.resolved.json',
      'env.json',
      'metrics.jsonl',
      'samples.jsonl',
      'summary.json',
      'tokenizer.json',
      'states.bin',
      'agent0.ckpt',
      'agent2.ckpt',
      'adapter-task.ckpt',
      'adapter-paper.ckpt',
    ])
      expect(existsSync(join(dir, f)), f).toBe(true);
    const metrics = readFileSync(join(dir, 'metrics.jsonl'), 'utf8');
    for (const m of ['agent1/loss', 'ae/loss', 'adapter-paper/loss']) expect(metrics).toContain(m);
    const samples = readFileSync(join(dir, 'samples.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { correct: Record<string, number> });
    expect(samples).toHaveLength(6);
    const rows = agentsRows(r.seeds);
    // every row's accuracy is the mean of its per-question scores in samples.jsonl (what the lab pairs)
    for (const row of rows)
      expect(samples.reduce((a, x) => a + x.correct[row.system], 0) / 6, row.system).toBeCloseTo(row.accuracy, 12);
    expect(Object.keys(samples[0].correct)).toHaveLength(rows.length);
    expect(rows.map((x) => x.system)).toContain('majority vote, no communication');
    expect(rows.map((x) => x.system)).toContain('thought-comm task, round 1 [random]');
    expect(agentsTableMarkdown(rows)).toContain('| thought-comm paper, round 1 [shuffle] |');
    expect(agentsJson('tiny', r.seeds)).toHaveProperty('rows');
    const again = await runAgentsExperiment(c, data, { outDir: out });
    expect(again.seeds[0]).toEqual(JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')));
  });

  it('summarises a structure as thoughts per set of agents and thoughts routed to each agent', () => {
    const st = structureFromSupport(
      Float32Array.from([1, 1, 0, 0, 1, 0, 0, 0, 1]),
      new Float32Array(9),
      new Float32Array(9),
      [
        [0, 1],
        [1, 2],
        [2, 3],
      ],
      3,
      0.01,
    );
    // rows = agents A, B, C: thought 0 used by A, thought 1 by A and B, thought 2 by C.
    expect(summariseStructure(st, 'paper')).toEqual({
      rule: 'paper',
      thoughtsByAgents: { A: 1, AB: 1, C: 1 },
      routedPerAgent: [2, 1, 1],
    });
  });
});
