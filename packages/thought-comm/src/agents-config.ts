/**
 * Config of ThoughtComm's part 2, agents that share thoughts ("Thought Communication in Multiagent
 * Collaboration", Zheng et al., NeurIPS 2025, arXiv 2510.20733; docs/method-reference.md §1.3–1.4 states,
 * §1.5–1.8 autoencoder, routing and agreement weights, §1.9 prefix adapter, §1.10 debate rounds,
 * §1.12 accuracy and consensus). The task and its data are the lab's: this config holds
 * everything else. Every value cites docs/method-reference.md or says `chosen:` with a reason.
 */
import { DEFAULT_LM_SHAPE, parseConfig, type LmConfig } from '@telepath/core';
import {
  DEFAULT_AUTOENCODER_CONFIG,
  DEFAULT_READOUT_CONFIG,
  validateAutoencoderConfig,
  validateReadoutConfig,
  type AutoencoderConfig,
  type ReadoutConfig,
} from './config.js';

/** 'no-cot': question → ### answer; 'cot': question → steps → ### answer (same segments as @telepath/cot). */
export type AgentVariant = 'no-cot' | 'cot';
/**
 * 'paper': NLL of a short continuation generated with the prefix + (1 − cos) of mean contextual
 * states with and without the prefix (§1.9 Eq. 12, no labels); 'task': NLL of the gold answer given
 * the prefix (our task-supervised variant).
 */
export type AdapterObjective = 'paper' | 'task';
/** 'random': the prefix replaced by Gaussian vectors of the same norm; 'shuffle': thoughts of another question. */
export type CommControl = 'random' | 'shuffle';

/** `pretrained`: a Hugging Face GPT-2 folder every agent starts from (core's loadGpt2); its sizes and tokenizer then replace these settings but `dropout`. */
export type AgentLmSettings = Omit<LmConfig, 'vocabSize'> & { pretrained?: string };

export interface AgentTrainingConfig {
  variant: AgentVariant;
  steps: number;
  batchSize: number;
  lr: number;
  warmupSteps: number;
  logEvery: number;
  checkpointEvery: number;
}

/** Where a prefix sits among the position ids: before the prompt ('after': the prompt moves by m) or beside it ('shared'). */
export type PrefixPositions = 'after' | 'shared';

export interface AdapterConfig {
  /** m prefix embeddings per agent and round. */
  prefixLength: number;
  /** Hidden width of the adapter MLP Z → hidden → m·C. */
  hidden: number;
  steps: number;
  batchSize: number;
  lr: number;
  warmupSteps: number;
  /** Longest "brief continuation" y_gen of the paper objective, in tokens. */
  continuationTokens: number;
  /** Initial value of every agreement weight w_α. */
  agreementInit: number;
  /**
   * Position ids of the prefix: 'after' — the prefix at 0 … m−1 and the prompt moved behind it, as a
   * model reading `inputs_embeds` numbers them (the paper's agents, rotary LMs, see only relative
   * offsets); 'shared' (default) — the prompt keeps the ids it was trained with and the prefix takes
   * 0 … m−1 beside them, for agents with learned positions that never saw a prefix (ours).
   */
  prefixPositions: PrefixPositions;
}

export interface AgentsExperimentConfig {
  name: string;
  description: string;
  seeds: number[];
  /** Number of agents n_a. */
  agents: number;
  lm: AgentLmSettings;
  agentTraining: AgentTrainingConfig;
  /** Training examples held out from the agents to fit the autoencoder and the adapters (the last ones of the train split). */
  commExamples: number;
  /** Hidden-state index the state is read from (hidden[0] = embeddings, hidden[l] = block l); −1 = ⌊2L/3⌋. */
  stateLayer: number;
  autoencoder: AutoencoderConfig;
  readout: ReadoutConfig;
  adapter: AdapterConfig;
  /** One adapter (and one set of agreement weights) is trained and evaluated per objective. */
  objectives: AdapterObjective[];
  /** Rounds including round 0 (independent answers). */
  rounds: number;
  /**
   * separate: each agent its own initialisation and data order; copies: one agent trained and
   * copied to every agent (the paper's agents are copies of one model, §1.10; with greedy decoding
   * they answer alike in round 0 and differ from round 1 through their own prefixes).
   */
  agentInit: 'separate' | 'copies';
  /**
   * Text debate (§1.10): agents are trained with peer answers after the question (`peerRate` of
   * the training questions), the text-only debate runs as a baseline, and the thought rounds pass
   * the answers as text as well as the prefix, as the paper's debate does.
   */
  textDebate: boolean;
  peerRate: number;
  controls: CommControl[];
  /**
   * Run records the agents start from instead of being trained here (agentTraining is then not
   * used): folders holding model.json, tokenizer.json and final.ckpt, relative to the runs folder,
   * `{seed}` standing for the run seed. One folder: every agent is a copy of it (agentInit
   * 'copies'); `agents` folders: one each (agentInit 'separate'). Empty: agents are trained here.
   */
  agentsFrom: string[];
  eval: { batchSize: number; maxNewTokens: number; maxExamples: number };
  why: Record<string, string> | null;
}

export const DEFAULT_AGENTS_EXPERIMENT_CONFIG: AgentsExperimentConfig = {
  name: 'thought-comm-agents',
  description: '',
  seeds: [0],
  agents: 3, // third-party (docs/method-reference.md §1.10): "3 agents, 2 rounds (main)"
  lm: { ...DEFAULT_LM_SHAPE, contextLength: 0, pretrained: '' }, // chosen: the quickstart's reference LM (core's default shape)
  agentTraining: {
    variant: 'no-cot', // chosen: No-CoT beat CoT on Countdown-3 at 1,000 steps in the quickstart, and decodes 3× fewer tokens
    steps: 1000, // chosen: the quickstart's No-CoT budget
    batchSize: 32,
    lr: 1e-3, // chosen: the quickstart's rate for a 4-layer LM from scratch
    warmupSteps: 50,
    logEvery: 50,
    checkpointEvery: 250,
  },
  // paper (§1.4): "we randomly sample 500 examples for fine-tuning the latent communication module"
  commExamples: 500,
  stateLayer: -1, // third-party (§1.4): "2/3 depth, not final layer", hidden_states[int(L·0.667)]
  autoencoder: {
    ...DEFAULT_AUTOENCODER_CONFIG,
    latentDim: 64, // chosen: n_z = n_h / 6 for n_h = 3·128 (the reproductions use n_z = n_h / 3 at 3072–6144 dims, §1.5)
    // inferred (§1.5): "α collapses to n_a without it" — the per-agent-block group norm decides routing
    penalty: 'group',
    lambda: 0.1, // chosen: the synthetic experiment's λ (the penalty is normalised the same way)
    steps: 1500, // chosen: as the synthetic experiment
    batch: 128, // third-party (§1.4): "batch 128" attributed to the rebuttal
    decorrelation: 1, // chosen: as the synthetic experiment
  },
  readout: DEFAULT_READOUT_CONFIG,
  adapter: {
    prefixLength: 1, // third-party (§1.9): "m = 1 in main runs"
    hidden: 256, // chosen: a small MLP for 500–1000 examples (the reproductions' 1.3M-parameter adapter overfit, §1.15)
    steps: 300, // chosen: sized to the 60-minute budget
    batchSize: 32,
    lr: 1e-3, // chosen: third-party 1e-4 (§1.9) is for billion-parameter LMs
    warmupSteps: 20,
    continuationTokens: 12, // third-party (§1.9): a "brief" continuation; Countdown answers are ≤ 12 tokens
    agreementInit: 1, // chosen: start from unweighted routing; §1.8 "learnable scalar w_α per level"
    prefixPositions: 'shared', // chosen: our agents learn absolute positions and never see a prefix in training, so 'after' (§1.9's numbering) moves every prompt token off its trained position (measured: 57–58 % → 4–14 %)
  },
  objectives: ['task', 'paper'],
  rounds: 2, // third-party (§1.10): "3 agents, 2 rounds (main)"
  agentInit: 'separate', // chosen: greedy copies of one model would agree in round 0; 'copies' is the paper's setting (§1.10)
  textDebate: false, // chosen: off, so the prefix is the only channel and its effect is measured alone; the paper passes both
  peerRate: 0.5, // chosen: half the training questions carry peer answers, so agents still answer alone
  controls: ['random', 'shuffle'], // issue 9: "a random prefix of matched norm; thoughts from another question"
  agentsFrom: [], // chosen: agents trained here unless an experiment names the references to start from
  eval: { batchSize: 100, maxNewTokens: 24, maxExamples: 0 },
  why: null,
};

const CHOICES: Record<string, readonly string[]> = {
  variant: ['no-cot', 'cot'],
  objective: ['paper', 'task'],
  control: ['random', 'shuffle'],
  agentInit: ['separate', 'copies'],
  prefixPositions: ['after', 'shared'],
};

function check(where: string, key: string, value: string): void {
  if (!CHOICES[key].includes(value))
    throw new Error(`${where}: unknown ${key} "${value}". Expected one of: ${CHOICES[key].join(', ')}`);
}

export function parseAgentsExperimentConfig(
  overrides: unknown,
  where = 'thought-comm agents experiment',
): AgentsExperimentConfig {
  const c = parseConfig(DEFAULT_AGENTS_EXPERIMENT_CONFIG, overrides, where);
  check(where, 'variant', c.agentTraining.variant);
  c.objectives.forEach((o) => check(where, 'objective', o));
  c.controls.forEach((o) => check(where, 'control', o));
  check(where, 'agentInit', c.agentInit);
  check(where, 'prefixPositions', c.adapter.prefixPositions);
  if (!(c.peerRate >= 0 && c.peerRate <= 1)) throw new Error(`${where}: peerRate must be in [0, 1], got ${c.peerRate}`);
  validateAutoencoderConfig(c.autoencoder, `${where}: autoencoder`);
  validateReadoutConfig(c.readout, `${where}: readout`);
  if (c.agents < 2) throw new Error(`${where}: agents must be ≥ 2, got ${c.agents}`);
  if (c.rounds < 1) throw new Error(`${where}: rounds must be ≥ 1, got ${c.rounds}`);
  if (c.adapter.prefixLength < 1) throw new Error(`${where}: adapter.prefixLength must be ≥ 1`);
  if (c.commExamples < 2) throw new Error(`${where}: commExamples must be ≥ 2`);
  if (c.stateLayer > c.lm.layers) throw new Error(`${where}: stateLayer ${c.stateLayer} > lm.layers ${c.lm.layers}`);
  if (c.seeds.length === 0) throw new Error(`${where}: seeds must not be empty`);
  checkAgentsFrom(c, where);
  if (!c.lm.pretrained) delete c.lm.pretrained; // from-scratch records keep their keys
  return c;
}

/** agentsFrom: strings; one folder with copies, one per agent with separate agents; not with a pretrained GPT-2. */
function checkAgentsFrom(c: AgentsExperimentConfig, where: string): void {
  const from = c.agentsFrom;
  if (!Array.isArray(from) || from.some((p) => typeof p !== 'string' || p === ''))
    throw new Error(`${where}: agentsFrom must be a list of run-record folders (non-empty strings)`);
  if (from.length === 0) return;
  if (c.lm.pretrained)
    throw new Error(`${where}: agentsFrom and lm.pretrained both say where the agents come from; give one`);
  if (c.textDebate)
    throw new Error(
      `${where}: agentsFrom with textDebate: the records' agents were not trained to read peers' answers`,
    );
  if (c.agentInit === 'copies' && from.length !== 1)
    throw new Error(
      `${where}: agentInit "copies" takes one agentsFrom folder (every agent a copy of it), got ${from.length}`,
    );
  if (c.agentInit === 'separate' && from.length !== c.agents)
    throw new Error(
      `${where}: agentInit "separate" takes one agentsFrom folder per agent (${c.agents}), got ${from.length}`,
    );
}

/** The hidden-state index agents' states are read from: ⌊2L/3⌋ by default (§1.4). */
export function stateLayerOf(c: Pick<AgentsExperimentConfig, 'stateLayer'>, layers: number): number {
  return c.stateLayer >= 0 ? c.stateLayer : Math.floor((2 * layers) / 3);
}
