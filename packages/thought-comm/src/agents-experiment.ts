/**
 * ThoughtComm's part 2 end to end ("Thought Communication in Multiagent Collaboration", arXiv
 * 2510.20733; docs/method-reference.md §1.3–1.10, §1.12): per seed,
 *   1. train A agents (core LMs) on the task, each from its own initialisation and data order, or
 *      load them from kept run records (agentsFrom: the task's references);
 *   2. round 0 on the held-out communication examples and on the test set;
 *   3. fit the sparse-Jacobian autoencoder on the agents' concatenated round-0 states, read the
 *      structure (relevance masks, α);
 *   4. per adapter objective: train the agreement weights and prefix adapters, then debate on the
 *      test set with the thought prefix and with each control;
 *   5. score single agents, the majority vote without communication and every debate (majority
 *      accuracy, consensus), and write the run record.
 * The pool's round-0 states are kept in states.bin (core tensor file) for analysis.
 * The method never sees the task: the lab passes examples and a scoring function. Agents and
 * adapters checkpoint through core's train(), so an interrupted run resumes; a finished seed is
 * read back from its summary.json unless forced.
 */
import { existsSync, promises as fs } from 'node:fs';
import * as path from 'node:path';
import * as tf from '@tensorflow/tfjs-core';
import {
  DEFAULT_OPTIM_CONFIG,
  Rng,
  RunRecord,
  train,
  writeFileAtomic,
  writeTensorFile,
  type BuildOptions,
  type Example,
  type RewardFn,
} from '@telepath/core';
import { adapterLoss, paperContinuations, type CommBatch } from './adapter-loss.js';
import { stateLayerOf, type AgentsExperimentConfig } from './agents-config.js';
import { agentLoss, embeddingNorm, type Agent } from './agents.js';
import { createComm } from './model.js';
import { independentRound, roundCorrect, roundStates, runDebate, scoreOf, type RoundScore } from './debate.js';
import { singleAgentRow, summariseStructure, textDebateRow, thoughtRow, VOTE_ROW } from './agents-report.js';
import { fitAutoencoder } from './fit.js';
import { encode } from './autoencoder.js';
import { readStructure } from './structure.js';
import { runTextDebate, withTrainingPeers } from './text-debate.js';
import { agentLms } from './agent-lms.js';

export interface AgentsTaskData {
  train: Example[];
  test: Example[];
  isCorrect: RewardFn;
  hashes: Record<string, string>;
  /** How the agents' shared tokenizer is built from `train` (core's `runTokenizer`; default: every piece). */
  vocabulary?: BuildOptions;
}
export interface AgentsRunOptions {
  outDir: string;
  /** The folder `agentsFrom` paths are relative to (the lab's runs folder); default the working directory. */
  recordsDir?: string;
  force?: boolean;
  log?: (line: string) => void;
  shouldStop?: () => boolean;
}

export interface AgentsSeedSummary {
  seed: number;
  stateLayer: number;
  agentTrainExamples: number;
  /** The run records the agents were loaded from (config agentsFrom), resolved; absent when they were trained here. */
  agentsFrom?: string[];
  commExamples: number;
  alphaHistogram: number[];
  /**
   * The recovered structure beside the routing it produces: the read-off rule, how many thoughts
   * each set of agents shares ("ABC": all three, "A": private to agent A, "none": irrelevant), and
   * how many thoughts each agent is sent (when every thought is shared by all, routing sends every
   * agent everything and does nothing).
   */
  structure: { rule: string; thoughtsByAgents: Record<string, number>; routedPerAgent: number[] };
  aeReconstruction: number;
  /** Round 0 (no communication): each agent, the majority vote and consensus. */
  independent: RoundScore;
  /** debates[objective][control] = one score per round (round 0 first); with textDebate the rounds pass answers as text too. */
  debates: Record<string, Record<string, RoundScore[]>>;
  /** textDebate: the text-only debate (no thoughts), one score per round. */
  textDebate?: RoundScore[];
  agreementWeights: Record<string, number[]>;
  seconds: Record<string, number>;
}

export async function runAgentsExperiment(
  c: AgentsExperimentConfig,
  data: AgentsTaskData,
  o: AgentsRunOptions,
): Promise<{ seeds: AgentsSeedSummary[]; interrupted: boolean }> {
  const seeds: AgentsSeedSummary[] = [];
  for (const seed of c.seeds) {
    const r = await runAgentsSeed(c, data, seed, o);
    if (r === 'interrupted') return { seeds, interrupted: true };
    seeds.push(r);
  }
  return { seeds, interrupted: false };
}

function sampleIndices(n: number, rng: Rng, k: number): number[] {
  return Array.from({ length: k }, () => rng.int(n));
}

export async function runAgentsSeed(
  c: AgentsExperimentConfig,
  data: AgentsTaskData,
  seed: number,
  o: AgentsRunOptions,
): Promise<AgentsSeedSummary | 'interrupted'> {
  const log = o.log ?? (() => {});
  const dir = path.join(o.outDir, `s${seed}`);
  const summaryFile = path.join(dir, 'summary.json');
  if (o.force) await fs.rm(dir, { recursive: true, force: true });
  else if (existsSync(summaryFile)) return JSON.parse(await fs.readFile(summaryFile, 'utf8')) as AgentsSeedSummary;
  if (data.train.length <= c.commExamples)
    throw new Error(
      `thought-comm agents: ${data.train.length} training examples, but commExamples = ${c.commExamples} are held out for the communication module`,
    );
  const record = await RunRecord.open(dir, { ...c, seed }, { resume: true, datasets: data.hashes });
  const agentTrain = data.train.slice(0, data.train.length - c.commExamples);
  const pool = data.train.slice(data.train.length - c.commExamples);
  const test = c.eval.maxExamples > 0 ? data.test.slice(0, c.eval.maxExamples) : data.test;
  const seconds: Record<string, number> = {};
  const timed = async <T>(name: string, f: () => Promise<T> | T): Promise<T> => {
    const t0 = performance.now();
    const out = await f();
    seconds[name] = (seconds[name] ?? 0) + (performance.now() - t0) / 1000;
    return out;
  };

  const rng = new Rng(seed);
  const { lms, tokenizer, lmConfig, recordDirs } = await agentLms(
    c,
    { ...data, test },
    { seed, dir, rng, recordsDir: o.recordsDir },
  );
  const fromRecords = recordDirs !== null;
  const agents: Agent[] = lms.map((lm) => ({
    lm,
    tokenizer,
    variant: c.agentTraining.variant,
    prefixPositions: c.adapter.prefixPositions,
  }));
  const disposables: { dispose(): void }[] = agents.map((a) => a.lm);
  try {
    // 1. Agents: own initialisation (rng fork per agent) and own data order (the step rng samples their batches).
    const t = c.agentTraining;
    for (const [k, a] of agents.entries()) {
      if (fromRecords) break; // loaded from the records, not trained here
      if (c.agentInit === 'copies' && k > 0) {
        for (const [name, v] of agents[0].lm.params) a.lm.params.get(name)!.assign(v); // the paper's agents: copies of one model
        continue;
      }
      const res = await timed('agents', () =>
        train({
          params: a.lm.params,
          rng: rng.fork(`agent/${k}/train`),
          modelConfig: lmConfig,
          checkpointPath: path.join(dir, `agent${k}.ckpt`),
          config: {
            steps: t.steps,
            logEvery: t.logEvery,
            checkpointEvery: t.checkpointEvery,
            optim: { ...DEFAULT_OPTIM_CONFIG, lr: t.lr, warmupSteps: t.warmupSteps },
          },
          loss: ({ rng: r }) =>
            agentLoss(
              a,
              withTrainingPeers(
                sampleIndices(agentTrain.length, r, t.batchSize).map((i) => agentTrain[i]),
                agentTrain,
                c.agents - 1,
                c.textDebate ? c.peerRate : 0,
                r.fork('peers'),
              ),
            ),
          onLog: (l) => {
            void record.log(l.step, { [`agent${k}/loss`]: l.loss, [`agent${k}/ms`]: l.ms });
            log(`[thought-comm] s${seed} agent ${k} step ${l.step}/${t.steps} loss ${l.loss.toFixed(3)}`);
          },
          shouldStop: o.shouldStop,
        }),
      );
      if (res.interrupted) return 'interrupted';
    }
    // 2. Round 0 (independent answers) on the communication pool and the test set.
    const ev = { maxNewTokens: c.eval.maxNewTokens, batchSize: c.eval.batchSize };
    const pool0 = await timed('round0', () => independentRound(agents, pool, ev));
    const test0 = await timed('round0', () => independentRound(agents, test, ev));
    // Each question's 0/1 score under every row of the table (agentsRows' names), for paired comparisons.
    const correct: Record<string, number>[] = test.map(() => ({}));
    const keepCorrect = (row: string, right: boolean[]) => right.forEach((ok, i) => (correct[i][row] = ok ? 1 : 0));
    /** Scores a round of answers[agent][example], keeping its majority's verdicts under `row` (if named). */
    const score = (answers: string[][], row?: string): RoundScore => {
      const right = roundCorrect(test, answers, data.isCorrect);
      if (row) keepCorrect(row, right.majority);
      return scoreOf(right, answers);
    };
    const answers0 = test0.map((r) => r.answers);
    const right0 = roundCorrect(test, answers0, data.isCorrect);
    right0.agents.forEach((right, k) => keepCorrect(singleAgentRow(k), right));
    keepCorrect(VOTE_ROW, right0.majority);
    const independent = scoreOf(right0, answers0);
    const textDebate = c.textDebate
      ? (await timed('debate-text', () => runTextDebate(agents, test, test0, { rounds: c.rounds, ...ev }))).map(
          (ans, r) => score(ans, r > 0 ? textDebateRow(r) : undefined),
        )
      : undefined;
    if (textDebate)
      log(
        `[thought-comm] s${seed} text debate round ${c.rounds - 1}: majority ${(100 * textDebate[c.rounds - 1].majority).toFixed(1)} %, consensus ${(100 * textDebate[c.rounds - 1].consensus).toFixed(1)} %`,
      );
    log(
      `[thought-comm] s${seed} round 0: agents ${independent.agents.map((x) => (100 * x).toFixed(1)).join(' / ')} %, vote ${(100 * independent.majority).toFixed(1)} %, consensus ${(100 * independent.consensus).toFixed(1)} %`,
    );
    // 3. Autoencoder on the concatenated round-0 states of the pool (§1.4: states "prior to communication").
    const layer = stateLayerOf(c, lmConfig.layers);
    const C = lmConfig.width;
    const A = c.agents;
    const hPool = await roundStates(agents, pool0, layer, c.eval.batchSize); // [P, A·C]
    const ranges: [number, number][] = agents.map((_, k) => [k * C, (k + 1) * C]);
    await writeTensorFile(
      path.join(dir, 'states.bin'),
      { pool: { dtype: 'float32', shape: [pool.length, A * C], values: hPool } },
      { stateLayer: layer, agentRanges: ranges, exampleIds: pool.map((e) => e.id) },
    );
    const fit = await timed('autoencoder', () =>
      fitAutoencoder({
        h: hPool,
        n: pool.length,
        stateDim: A * C,
        latentDim: c.autoencoder.latentDim,
        agentRanges: ranges,
        config: c.autoencoder,
        rng: rng.fork('ae'),
        logEvery: 250,
        onLog: (l) =>
          void record.log(l.step, {
            'ae/loss': l.loss,
            'ae/reconstruction': l.reconstruction,
            'ae/penalty': l.penalty,
          }),
      }),
    );
    const ae = fit.ae;
    disposables.push(ae);
    const zPool = tf.tidy(() => encode(ae, tf.tensor2d(hPool, [pool.length, A * C]))); // [P, Z]
    disposables.push(zPool);
    const structure = await readStructure(ae, zPool, ranges, c.readout);
    const structureSummary = summariseStructure(structure, c.readout.rule);
    log(
      `[thought-comm] s${seed} autoencoder: reconstruction ${fit.final.reconstruction.toFixed(4)}, α histogram ${JSON.stringify(structure.alphaHistogram)}, thoughts by agents ${JSON.stringify(structureSummary.thoughtsByAgents)}, routed per agent ${JSON.stringify(structureSummary.routedPerAgent)}`,
    );
    // 4. Per objective: adapters + agreement weights, then debates with and without controls.
    const debates: AgentsSeedSummary['debates'] = {};
    const agreementWeights: Record<string, number[]> = {};
    const zRows = (await zPool.array()) as number[][];
    const samples = test.map((ex, i) => ({
      id: ex.id,
      question: ex.question,
      gold: ex.answer,
      round0: test0.map((r) => r.answers[i]) as unknown,
      correct: correct[i],
    }));
    for (const objective of c.objectives) {
      const norms: number[] = [];
      for (const a of agents) norms.push(await embeddingNorm(a.lm));
      const comm = createComm(
        structure,
        c.adapter,
        agents.map(() => C),
        norms,
        rng.fork(`comm/${objective}`),
      );
      disposables.push(comm);
      // The step's batch, drawn from its rng (prepare and loss get equal rngs, so the same batch).
      const commBatch = (r: Rng): CommBatch => {
        const idx = sampleIndices(pool.length, r, c.adapter.batchSize);
        return {
          examples: idx.map((i) => pool[i]),
          z: tf.tensor2d(idx.map((i) => zRows[i])),
          refs: pool0.map((p) => idx.map((i) => p.responses[i])),
        }; // z [B, Z]
      };
      let continuations: number[][][] | undefined;
      const res = await timed(`adapter-${objective}`, () =>
        train({
          params: comm.params,
          rng: rng.fork(`comm/${objective}/train`),
          checkpointPath: path.join(dir, `adapter-${objective}.ckpt`),
          config: {
            steps: c.adapter.steps,
            logEvery: 25,
            checkpointEvery: 100,
            optim: { ...DEFAULT_OPTIM_CONFIG, lr: c.adapter.lr, warmupSteps: c.adapter.warmupSteps, weightDecay: 0 },
          },
          // The paper objective's y_gen is decoded before the gradient tape (asynchronous reads).
          prepare: async ({ rng: r }) => {
            if (objective !== 'paper') return;
            const b = commBatch(r);
            try {
              continuations = await paperContinuations(agents, comm, b, c.adapter);
            } finally {
              b.z.dispose();
            }
          },
          loss: ({ rng: r }) => adapterLoss(agents, comm, objective, { ...commBatch(r), continuations }),
          onLog: (l) => {
            void record.log(l.step, { [`adapter-${objective}/loss`]: l.loss, [`adapter-${objective}/ms`]: l.ms });
            log(
              `[thought-comm] s${seed} adapter (${objective}) step ${l.step}/${c.adapter.steps} loss ${l.loss.toFixed(3)}`,
            );
          },
          shouldStop: o.shouldStop,
        }),
      );
      if (res.interrupted) return 'interrupted';
      agreementWeights[objective] = Array.from(await comm.agreement.data());
      debates[objective] = {};
      for (const control of ['none', ...c.controls] as const) {
        const d = await timed(`debate-${objective}`, () =>
          runDebate(agents, ae, comm, test, test0, {
            rounds: c.rounds,
            layer,
            control,
            rng: rng.fork(`debate/${objective}/${control}`),
            text: c.textDebate,
            ...ev,
          }),
        );
        debates[objective][control] = d.answers.map((ans, r) =>
          score(ans, r > 0 ? thoughtRow(objective, control, r, c.textDebate) : undefined),
        );
        const last = debates[objective][control][c.rounds - 1];
        log(
          `[thought-comm] s${seed} ${objective} [${control}] round ${c.rounds - 1}: majority ${(100 * last.majority).toFixed(1)} %, consensus ${(100 * last.consensus).toFixed(1)} %, agents ${last.agents.map((x) => (100 * x).toFixed(1)).join(' / ')} %`,
        );
        if (control === 'none')
          samples.forEach((s, i) =>
            Object.assign(s, { [objective]: d.answers.slice(1).map((round) => round.map((a) => a[i])) }),
          );
      }
    }
    const summary: AgentsSeedSummary = {
      seed,
      stateLayer: layer,
      agentTrainExamples: fromRecords ? 0 : agentTrain.length,
      ...(recordDirs ? { agentsFrom: recordDirs } : {}),
      commExamples: pool.length,
      alphaHistogram: structure.alphaHistogram,
      structure: structureSummary,
      aeReconstruction: fit.final.reconstruction,
      independent,
      debates,
      ...(textDebate ? { textDebate } : {}),
      agreementWeights,
      seconds,
    };
    await writeFileAtomic(path.join(dir, 'samples.jsonl'), samples.map((s) => JSON.stringify(s)).join('\n') + '\n');
    await record.finish(summary);
    return summary;
  } finally {
    for (const d of disposables) d.dispose();
  }
}
