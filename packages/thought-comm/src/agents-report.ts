/**
 * Table and JSON views of ThoughtComm's agents experiment ("Thought Communication in Multiagent
 * Collaboration", arXiv 2510.20733; docs/method-reference.md §1.12–1.13: accuracy ± binomial SE and consensus,
 * against a single agent and a majority vote without communication). One row per system, means
 * over seeds. Every seed answers the same test questions, so more seeds do not shrink the spread that
 * comes from which questions were drawn: a row's SE is the mean of its seeds' binomial SEs,
 * se_i = sqrt(p_i(1−p_i)/n). Where each question's score is recorded, the caller passes the bootstrap
 * over questions and seeds instead (RowBootstrap), which the tables show in its place.
 */
import type { AgentsSeedSummary } from './agents-experiment.js';
import { maskName, relevantThoughts, type Structure } from './structure.js';

export interface AgentsRow {
  /** e.g. "single agent (agent 0)", "majority vote, no communication", "thought-comm task, round 1 [random]". */
  system: string;
  accuracy: number;
  stderr: number;
  /** Share of test questions where all agents agree (NaN for a single agent). */
  consensus: number;
  /** Mean accuracy of the agents in that round (NaN for a single agent). */
  agentMean: number;
  n: number;
  seeds: number;
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);

/** Row names, shared with each question's `correct` record in samples.jsonl (the lab pairs rows by them). */
export const VOTE_ROW = 'majority vote, no communication';
export const singleAgentRow = (k: number) => `single agent (agent ${k})`;
export const textDebateRow = (round: number) => `text debate (no thoughts), round ${round}`;
export const thoughtRow = (objective: string, control: string, round: number, withText: boolean) =>
  `thought-comm ${objective}${withText ? ' + text' : ''}, round ${round}${control === 'none' ? '' : ` [${control}]`}`;

/** A row's paired difference from the majority vote (points as fractions, 95 % interval). */
export interface VoteDifference {
  diff: number;
  lo: number;
  hi: number;
}

/** What a bootstrap over each question's score (questions and seeds resampled) gives one row. */
export interface RowBootstrap {
  /** Standard deviation of the row's seed-mean accuracy over the draws. */
  sd: number;
  /** Paired difference from the majority vote on the same questions; absent for the vote itself. */
  vsVote?: VoteDifference;
}
const se = (p: number, n: number) => (n > 0 ? Math.sqrt((p * (1 - p)) / n) : 0);

function row(
  system: string,
  cells: { accuracy: number; consensus: number; agentMean: number; n: number }[],
): AgentsRow {
  return {
    system,
    accuracy: mean(cells.map((c) => c.accuracy)),
    stderr: mean(cells.map((c) => se(c.accuracy, c.n))),
    consensus: mean(cells.map((c) => c.consensus)),
    agentMean: mean(cells.map((c) => c.agentMean)),
    n: cells[0].n,
    seeds: cells.length,
  };
}

export function agentsRows(seeds: AgentsSeedSummary[]): AgentsRow[] {
  if (seeds.length === 0) return [];
  const s0 = seeds[0];
  const rows: AgentsRow[] = [];
  s0.independent.agents.forEach((_, k) =>
    rows.push(
      row(
        singleAgentRow(k),
        seeds.map((s) => ({ accuracy: s.independent.agents[k], consensus: NaN, agentMean: NaN, n: s.independent.n })),
      ),
    ),
  );
  rows.push(
    row(
      VOTE_ROW,
      seeds.map((s) => ({
        accuracy: s.independent.majority,
        consensus: s.independent.consensus,
        agentMean: mean(s.independent.agents),
        n: s.independent.n,
      })),
    ),
  );
  if (s0.textDebate) {
    for (let r = 1; r < s0.textDebate.length; r++) {
      rows.push(
        row(
          textDebateRow(r),
          seeds.map((s) => {
            const x = s.textDebate![r];
            return { accuracy: x.majority, consensus: x.consensus, agentMean: mean(x.agents), n: x.n };
          }),
        ),
      );
    }
  }
  for (const objective of Object.keys(s0.debates)) {
    for (const control of Object.keys(s0.debates[objective])) {
      const rounds = s0.debates[objective][control].length;
      for (let r = 1; r < rounds; r++) {
        const name = thoughtRow(objective, control, r, Boolean(s0.textDebate));
        rows.push(
          row(
            name,
            seeds.map((s) => {
              const x = s.debates[objective][control][r];
              return { accuracy: x.majority, consensus: x.consensus, agentMean: mean(x.agents), n: x.n };
            }),
          ),
        );
      }
    }
  }
  return rows;
}

const pct = (x: number) => (Number.isFinite(x) ? (100 * x).toFixed(1) : '–');

/** "+1.2 [−0.9, +3.4]" in points, or – without a difference (the vote itself, records without per-question scores). */
function voteCell(d: VoteDifference | undefined): string {
  if (!d || !Number.isFinite(d.diff)) return '–';
  const p = (x: number) => `${x >= 0 ? '+' : '−'}${Math.abs(100 * x).toFixed(1)}`;
  return `${p(d.diff)} [${p(d.lo)}, ${p(d.hi)}]`;
}

/** "57.7 ± 1.6": ± the bootstrap sd where the caller has one for the row, else the binomial SE. */
const accuracyCell = (r: AgentsRow, bootstrap?: Map<string, RowBootstrap>) =>
  `${pct(r.accuracy)} ± ${pct(bootstrap?.get(r.system)?.sd ?? r.stderr)}`;

/**
 * The table as markdown. `bootstrap` (row name → RowBootstrap, computed by the caller from each
 * question's score) replaces the binomial ± and adds the paired difference from the vote.
 */
export function agentsTableMarkdown(
  rows: AgentsRow[],
  seeds: AgentsSeedSummary[] = [],
  bootstrap?: Map<string, RowBootstrap>,
): string {
  const lines = bootstrap
    ? [
        '| system | accuracy % (majority) ± bootstrap sd | − vote, points [paired 95 %] | consensus % | mean agent % | n | seeds |',
        '|---|---|---|---|---|---|---|',
      ]
    : [
        '| system | accuracy % (majority) ± binomial SE | consensus % | mean agent % | n | seeds |',
        '|---|---|---|---|---|---|',
      ];
  for (const r of rows)
    lines.push(
      `| ${r.system} | ${accuracyCell(r, bootstrap)} |${bootstrap ? ` ${voteCell(bootstrap.get(r.system)?.vsVote)} |` : ''} ${pct(r.consensus)} | ${pct(r.agentMean)} | ${r.n} | ${r.seeds} |`,
    );
  const withStructure = seeds.filter((s) => s.structure);
  if (withStructure.length) {
    lines.push('', '| seed | read-off | thoughts by agents | thoughts routed to each agent |', '|---|---|---|---|');
    for (const s of withStructure)
      lines.push(
        `| ${s.seed} | ${s.structure.rule} | ${Object.entries(s.structure.thoughtsByAgents)
          .map(([k, v]) => `${k} ${v}`)
          .join(', ')} | ${s.structure.routedPerAgent.join(' / ')} |`,
      );
  }
  return lines.join('\n');
}

export function agentsTableText(rows: AgentsRow[], bootstrap?: Map<string, RowBootstrap>): string {
  const head = [
    'system',
    bootstrap ? 'accuracy % ± sd' : 'accuracy % ± SE',
    ...(bootstrap ? ['− vote [95 %]'] : []),
    'consensus %',
    'mean agent %',
    'n',
  ];
  const cells = rows.map((r) => [
    r.system,
    accuracyCell(r, bootstrap),
    ...(bootstrap ? [voteCell(bootstrap.get(r.system)?.vsVote)] : []),
    pct(r.consensus),
    pct(r.agentMean),
    String(r.n),
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i].length)));
  const line = (c: string[]) => c.map((x, i) => (i === 0 ? x.padEnd(widths[i]) : x.padStart(widths[i]))).join('  ');
  return [line(head), line(widths.map((w) => '-'.repeat(w))), ...cells.map(line)].join('\n');
}

/** The `--json` shape: rows (with `bootstrap` where known) plus each seed's summary. */
export function agentsJson(name: string, seeds: AgentsSeedSummary[], bootstrap?: Map<string, RowBootstrap>): object {
  const rows = agentsRows(seeds).map((r) =>
    bootstrap?.has(r.system) ? { ...r, bootstrap: bootstrap.get(r.system) } : r,
  );
  return { experiment: name, kind: 'thought-comm-agents', rows, seeds };
}

/** Thoughts per set of agents and thoughts routed to each agent (AgentsSeedSummary.structure). */
export function summariseStructure(st: Structure, rule: string): AgentsSeedSummary['structure'] {
  const thoughtsByAgents: Record<string, number> = {};
  for (const mask of st.latentAgents)
    thoughtsByAgents[maskName(mask, st.agents)] = (thoughtsByAgents[maskName(mask, st.agents)] ?? 0) + 1;
  return {
    rule,
    thoughtsByAgents,
    routedPerAgent: Array.from({ length: st.agents }, (_, k) => relevantThoughts(st, k).length),
  };
}
