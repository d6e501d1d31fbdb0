/**
 * Text debate (§1.10): peers' answers after the question, agents trained to read them, the
 * text-only debate as a baseline, and the paper's agents as copies of one model.
 */
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { initBackend, Rng, type Example } from '@telepath/core';
import { toyAdditionExamples } from '@telepath/core/testing';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseAgentsExperimentConfig } from './agents-config.js';
import { runAgentsExperiment } from './agents-experiment.js';
import { agentsRows } from './agents-report.js';
import { respond } from './agents.js';
import { independentRound } from './debate.js';
import { PEER_MARKER, peerBatches, runTextDebate, withPeers, withTrainingPeers } from './text-debate.js';
import { TINY_AGENTS_EXPERIMENT, tinyAgents } from './testing.js';

beforeAll(async () => {
  await initBackend('cpu', { quiet: true });
});

const examples = toyAdditionExamples(40);

describe('text debate', () => {
  it("each agent reads the other agents' previous answers after its question, never its own", () => {
    expect(withPeers(examples[0], ['7', ' '])).toMatchObject({
      question: `${examples[0].question} ${PEER_MARKER} 7 | -`,
      answer: examples[0].answer,
    });
    const previous = [
      ['a0', 'a1', 'a2'],
      ['b0', 'b1', 'b2'],
      ['c0', 'c1', 'c2'],
    ]; // [agent][example]
    const batches = peerBatches(examples.slice(1, 3), previous, 1);
    expect(batches.map((b) => b.map((ex) => ex.question.split(`${PEER_MARKER} `)[1]))).toEqual([
      ['b1 | c1', 'b2 | c2'],
      ['a1 | c1', 'a2 | c2'],
      ['a1 | b1', 'a2 | b2'],
    ]);
  });

  it('training questions carry peer answers at the given rate, gold half of the time', () => {
    const rng = new Rng(0);
    expect(withTrainingPeers(examples, examples, 2, 0, rng)).toEqual(examples);
    const all = withTrainingPeers(Array(400).fill(examples[3]) as Example[], examples, 2, 1, rng);
    expect(all.every((ex) => ex.question.includes(PEER_MARKER))).toBe(true);
    const peers = all.flatMap((ex) => ex.question.split(`${PEER_MARKER} `)[1].split(' | '));
    const gold = peers.filter((p) => p === examples[3].answer).length / peers.length;
    expect(gold).toBeGreaterThan(0.45);
    expect(gold).toBeLessThan(0.7); // 0.5 plus other questions that share the answer
    const half = withTrainingPeers(Array(400).fill(examples[3]) as Example[], examples, 2, 0.5, rng).filter((ex) =>
      ex.question.includes(PEER_MARKER),
    ).length;
    expect(half).toBeGreaterThan(160);
    expect(half).toBeLessThan(240);
  });

  it("round r answers are each agent's answers to its question with the round r − 1 answers of the others", async () => {
    const agents = tinyAgents(3, examples);
    const batch = examples.slice(0, 5);
    const round0 = await independentRound(agents, batch, { maxNewTokens: 4, batchSize: 2 });
    const answers = await runTextDebate(agents, batch, round0, { rounds: 2, maxNewTokens: 4, batchSize: 2 });
    expect(answers.map((r) => r.map((a) => a.length))).toEqual([
      [5, 5, 5],
      [5, 5, 5],
    ]);
    const direct: string[][] = [];
    for (const [k, b] of peerBatches(
      batch,
      round0.map((r) => r.answers),
      0,
    ).entries())
      direct.push((await respond(agents[k], b, null, { maxNewTokens: 4 })).answers);
    expect(answers[1]).toEqual(direct);
    agents.forEach((a) => a.lm.dispose());
  });

  it('the agents experiment runs the text-debate baseline beside thought + text rounds, with agents copied from one model', async () => {
    const c = parseAgentsExperimentConfig({
      ...TINY_AGENTS_EXPERIMENT,
      name: 'tiny-text',
      objectives: ['task'],
      controls: [],
      agentInit: 'copies',
      textDebate: true,
    });
    const out = mkdtempSync(join(tmpdir(), 'tc-text-'));
    const data = {
      train: examples.slice(0, 30),
      test: examples.slice(30),
      isCorrect: (ex: Example, a: string) => (ex.answer === a ? 1 : 0),
      hashes: { toy: 'x' },
    };
    const r = await runAgentsExperiment(c, data, { outDir: out });
    const s = r.seeds[0];
    expect(s.textDebate).toHaveLength(2);
    expect(s.textDebate![0]).toEqual(s.independent);
    // Copies of one model answer alike in round 0.
    expect(s.independent.consensus).toBe(1);
    expect(existsSync(join(out, 's0', 'agent0.ckpt'))).toBe(true);
    expect(existsSync(join(out, 's0', 'agent1.ckpt'))).toBe(false);
    const systems = agentsRows(r.seeds).map((x) => x.system);
    expect(systems).toContain('text debate (no thoughts), round 1');
    expect(systems).toContain('thought-comm task + text, round 1');
    const samples = readFileSync(join(out, 's0', 'samples.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { correct: Record<string, number> });
    for (const row of agentsRows(r.seeds))
      // every row's per-question scores, the text debate's included
      expect(samples.reduce((a, x) => a + x.correct[row.system], 0) / samples.length, row.system).toBeCloseTo(
        row.accuracy,
        12,
      );
    expect(() => parseAgentsExperimentConfig({ agentInit: 'clones' })).toThrow(/Expected one of: separate, copies/);
  }, 60_000);
});
