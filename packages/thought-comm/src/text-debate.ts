/**
 * Text debate ("Thought Communication in Multiagent Collaboration", arXiv 2510.20733;
 * docs/method-reference.md §1.10): from round 1 every agent sees the other agents' previous answers as text after its
 * question, as the debate the paper builds on does (ThoughtComm adds the thought prefix on top).
 * Our agents are trained from scratch, so they learn to read that text in training: with
 * probability `peerRate` a training question carries A − 1 peer answers, each the gold answer
 * or, as often, another question's answer (peers are right half of the time, so copying them
 * blindly does not pay). The text-only debate is the baseline the thought prefix is compared with.
 * Letters: A agents, B batch.
 */
import type { Example, Rng } from '@telepath/core';
import { respond, type Agent, type AgentResponse } from './agents.js';

/** Text put between the question and the peers' answers. */
export const PEER_MARKER = 'Peers:';
const PEER_SEPARATOR = ' | ';

/** The example with the peers' answers appended to its question. */
export function withPeers(ex: Example, peers: string[]): Example {
  return { ...ex, question: `${ex.question} ${PEER_MARKER} ${peers.map((p) => p.trim() || '-').join(PEER_SEPARATOR)}` };
}

/** Examples that put the marker and separator into a vocabulary built from training text (3 each: past any min count). */
export function peerVocabularyExamples(): Example[] {
  return Array.from({ length: 3 }, (_, i) => ({
    id: `peer-vocabulary-${i}`,
    question: `${PEER_MARKER} -${PEER_SEPARATOR}-`,
    steps: [],
    answer: '-',
  }));
}

/** A training batch in which each question carries `peers` answers with probability `rate` (each gold or another question's, evenly). */
export function withTrainingPeers(batch: Example[], pool: Example[], peers: number, rate: number, rng: Rng): Example[] {
  return batch.map((ex) => {
    if (rate <= 0 || rng.float() >= rate) return ex;
    return withPeers(
      ex,
      Array.from({ length: peers }, () => (rng.float() < 0.5 ? ex.answer : pool[rng.int(pool.length)].answer)),
    );
  });
}

/** Each agent's batch for a round: the question plus the other agents' answers of the round before. previous[agent][example]. */
export function peerBatches(batch: Example[], previous: string[][], offset: number): Example[][] {
  return previous.map((_, k) =>
    batch.map((ex, j) =>
      withPeers(
        ex,
        previous.filter((__, p) => p !== k).map((answers) => answers[offset + j]),
      ),
    ),
  );
}

/** Rounds 1 … R−1 of a text-only debate after round 0: answers[round][agent][example]. */
export async function runTextDebate(
  agents: Agent[],
  examples: Example[],
  round0: AgentResponse[],
  o: { rounds: number; maxNewTokens: number; batchSize: number },
): Promise<string[][][]> {
  const answers: string[][][] = [round0.map((r) => r.answers)];
  for (let r = 1; r < o.rounds; r++) {
    const round = agents.map(() => [] as string[]);
    for (let i = 0; i < examples.length; i += o.batchSize) {
      const batches = peerBatches(examples.slice(i, i + o.batchSize), answers[r - 1], i);
      for (const [k, a] of agents.entries())
        round[k].push(...(await respond(a, batches[k], null, { maxNewTokens: o.maxNewTokens })).answers);
    }
    answers.push(round);
  }
  return answers;
}
