/**
 * Debate rounds of ThoughtComm ("Thought Communication in Multiagent Collaboration", arXiv
 * 2510.20733; docs/method-reference.md §1.3 pipeline per round, §1.10 protocol, §1.12 consensus):
 *   round 0   every agent answers alone;
 *   round r   each agent's state H^(k) (last token of its round r−1 transcript, behind the prefix
 *             it saw) → Ẑ = f̂⁻¹(H^(1) … H^(A)) → routed to each agent → prefix P^(k) → answer.
 * With `text` each agent also reads the other agents' previous answers after its question (the
 * paper's debate; the agents must have been trained with peer answers, text-debate.ts); without,
 * the prefix is the only channel.
 * Controls (issue 9, core's applyLatentControl): 'random' replaces each prefix vector by a
 * Gaussian one of the same norm; 'shuffle' gives every question the thoughts of another one.
 * Letters: B batch, A agents, C width, Z thoughts, m prefix length.
 */
import * as tf from '@tensorflow/tfjs-core';
import { applyLatentControl, tidy, type Example, type LatentControl, type Rng } from '@telepath/core';
import { agentStates, respond, type Agent, type AgentResponse } from './agents.js';
import { agentPrefix, type CommModule } from './model.js';
import { encode, type Autoencoder } from './autoencoder.js';
import { peerBatches } from './text-debate.js';

export interface DebateOptions {
  /** Rounds including round 0. */
  rounds: number;
  /** Hidden-state index of the states. */
  layer: number;
  control: LatentControl;
  rng: Rng;
  maxNewTokens: number;
  batchSize: number;
  /** Also show each agent the other agents' previous answers as text (text-debate.ts), as the paper's debate does. */
  text?: boolean;
}

/** answers[round][agent][example]. */
export interface DebateResult {
  answers: string[][][];
}

/** The concatenated states of every agent for a batch: A × [B, C] → [B, A·C]. */
export function jointStates(
  agents: Agent[],
  transcripts: number[][][],
  prefixes: (tf.Tensor3D | null)[],
  layer: number,
): tf.Tensor2D {
  return tidy(
    () =>
      tf.concat(
        agents.map((a, k) =>
          agentStates(a.lm, transcripts[k], layer, prefixes[k], a.tokenizer.padId, a.prefixPositions),
        ),
        1,
      ) as tf.Tensor2D,
  );
}

/** Every agent's answers to every example, in batches, without communication. */
export async function independentRound(
  agents: Agent[],
  examples: Example[],
  o: { maxNewTokens: number; batchSize: number },
): Promise<AgentResponse[]> {
  const out: AgentResponse[] = [];
  for (const a of agents) {
    const all: AgentResponse = { answers: [], responses: [], transcripts: [] };
    for (let i = 0; i < examples.length; i += o.batchSize) {
      const r = await respond(a, examples.slice(i, i + o.batchSize), null, { maxNewTokens: o.maxNewTokens });
      all.answers.push(...r.answers);
      all.responses.push(...r.responses);
      all.transcripts.push(...r.transcripts);
    }
    out.push(all);
  }
  return out;
}

/** Rounds 1 … R−1 with thought prefixes, after the given round 0. */
export async function runDebate(
  agents: Agent[],
  ae: Autoencoder,
  comm: CommModule,
  examples: Example[],
  round0: AgentResponse[],
  o: DebateOptions,
): Promise<DebateResult> {
  const A = agents.length;
  const answers: string[][][] = [round0.map((r) => r.answers)];
  for (let r = 1; r < o.rounds; r++) answers.push(agents.map(() => []));
  for (let i = 0; i < examples.length; i += o.batchSize) {
    const batch = examples.slice(i, i + o.batchSize);
    let transcripts = round0.map((r) => r.transcripts.slice(i, i + batch.length));
    let prefixes: (tf.Tensor3D | null)[] = agents.map(() => null);
    try {
      for (let r = 1; r < o.rounds; r++) {
        const rng = o.rng.fork(`batch/${i}/round/${r}`);
        const next = tidy(() => {
          const h = jointStates(agents, transcripts, prefixes, o.layer); // [B, A·C]
          let z = encode(ae, h); // [B, Z]
          if (o.control === 'shuffle' || o.control === 'zero')
            z = applyLatentControl(z, o.control, rng.fork('thoughts'));
          return agents.map((_, k) => {
            const p = agentPrefix(comm, z, k); // [B, m, C]
            return o.control === 'random' ? applyLatentControl(p, 'random', rng.fork(`prefix/${k}`)) : p;
          });
        });
        tf.dispose(prefixes.filter((p): p is tf.Tensor3D => p !== null));
        prefixes = next;
        const batches = o.text ? peerBatches(batch, answers[r - 1], i) : agents.map(() => batch);
        const responses: AgentResponse[] = [];
        for (const [k, a] of agents.entries())
          responses.push(await respond(a, batches[k], prefixes[k], { maxNewTokens: o.maxNewTokens }));
        for (let k = 0; k < A; k++) answers[r][k].push(...responses[k].answers);
        transcripts = responses.map((x) => x.transcripts);
      }
    } finally {
      tf.dispose(prefixes.filter((p): p is tf.Tensor3D => p !== null));
    }
  }
  return { answers };
}

/** Answers compared after removing whitespace. */
export function normaliseAnswer(a: string): string {
  return a.replace(/\s+/g, '');
}

/**
 * Majority answer of the agents for one example: the most frequent normalised answer; among tied
 * answers, the one the lowest-numbered agent gave (chosen: with 3 agents and no two equal answers,
 * agent 0's answer).
 */
export function majority(answers: string[]): string {
  const counts = new Map<string, number>();
  for (const a of answers) counts.set(normaliseAnswer(a), (counts.get(normaliseAnswer(a)) ?? 0) + 1);
  let best = answers[0];
  let bestCount = 0;
  for (const a of answers) {
    const c = counts.get(normaliseAnswer(a))!;
    if (c > bestCount) [best, bestCount] = [a, c];
  }
  return best;
}

/** Whether all agents gave the same (normalised) answer (§1.12: "share of problems where all agents agree"). */
export function agree(answers: string[]): boolean {
  return answers.every((a) => normaliseAnswer(a) === normaliseAnswer(answers[0]));
}

export interface RoundScore {
  /** Accuracy of each agent. */
  agents: number[];
  majority: number;
  consensus: number;
  n: number;
}

/** Per example of one round: whether each agent's answer and the majority answer are right. answers[agent][example]. */
export function roundCorrect(
  examples: Example[],
  answers: string[][],
  isCorrect: (ex: Example, answer: string) => number,
): { agents: boolean[][]; majority: boolean[] } {
  return {
    agents: answers.map((a) => examples.map((ex, i) => isCorrect(ex, a[i]) > 0)),
    majority: examples.map((ex, i) => isCorrect(ex, majority(answers.map((a) => a[i]))) > 0),
  };
}

/** A round's score from its per-example verdicts (`roundCorrect`) and answers[agent][example]. */
export function scoreOf(right: { agents: boolean[][]; majority: boolean[] }, answers: string[][]): RoundScore {
  const n = right.majority.length;
  const share = (xs: boolean[]) => (n ? xs.filter(Boolean).length / n : 0);
  return {
    agents: right.agents.map(share),
    majority: share(right.majority),
    consensus: share(right.majority.map((_, i) => agree(answers.map((a) => a[i])))),
    n,
  };
}

/** Scores one round: answers[agent][example]; isCorrect(example, answer). */
export function scoreRound(
  examples: Example[],
  answers: string[][],
  isCorrect: (ex: Example, answer: string) => number,
): RoundScore {
  return scoreOf(roundCorrect(examples, answers, isCorrect), answers);
}

/** Concatenated states of every agent for a round's transcripts, batched (one asynchronous read per batch): [N, A·C] row-major. */
export async function roundStates(
  agents: Agent[],
  round: AgentResponse[],
  layer: number,
  batchSize: number,
): Promise<Float32Array> {
  const N = round[0].transcripts.length;
  const parts: Float32Array[] = [];
  for (let i = 0; i < N; i += batchSize) {
    const h = jointStates(
      agents,
      round.map((r) => r.transcripts.slice(i, i + batchSize)),
      agents.map(() => null),
      layer,
    );
    try {
      parts.push((await h.data()) as Float32Array);
    } finally {
      h.dispose();
    }
  }
  const out = new Float32Array(parts.reduce((a, p) => a + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
