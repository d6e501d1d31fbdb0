/**
 * Table and JSON views of ThoughtComm's agents experiment ("Thought Communication in Multiagent
 * Collaboration", arXiv 2510.20733; docs/method-reference.md §1.12–1.13: accuracy ± binomial SE and consensus,
 * against a single agent and a majority vote without communication). One row per system, means
 * over seeds; SE = sqrt(Σ se_i²)/k with se_i = sqrt(p(1−p)/n).
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
const se = (p: number, n: number) => (n > 0 ? Math.sqrt((p * (1 - p)) / n) : 0);

function row(
  system: string,
  cells: { accuracy: number; consensus: number; agentMean: number; n: number }[],
): AgentsRow {
  const k = cells.length;
  return {
    system,
    accuracy: mean(cells.map((c) => c.accuracy)),
    stderr: Math.sqrt(cells.reduce((a, c) => a + se(c.accuracy, c.n) ** 2, 0)) / k,
    consensus: mean(cells.map((c) => c.consensus)),
    agentMean: mean(cells.map((c) => c.agentMean)),
    n: cells[0].n,
    seeds: k,
  };
}

export function agentsRows(seeds: AgentsSeedSummary[]): AgentsRow[] {
  if (seeds.length === 0) return [];
  const s0 = seeds[0];
  const rows: AgentsRow[] = [];
  s0.independent.agents.forEach((_, k) =>
    rows.push(
      row(
        `single agent (agent ${k})`,
        seeds.map((s) => ({ accuracy: s.independent.agents[k], consensus: NaN, agentMean: NaN, n: s.independent.n })),
      ),
    ),
  );
  rows.push(
    row(
      'majority vote, no communication',
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
          `text debate (no thoughts), round ${r}`,
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
        const name = `thought-comm ${objective}${s0.textDebate ? ' + text' : ''}, round ${r}${control === 'none' ? '' : ` [${control}]`}`;
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

export function agentsTableMarkdown(rows: AgentsRow[], seeds: AgentsSeedSummary[] = []): string {
  const lines = [
    '| system | accuracy % (majority) | consensus % | mean agent % | n | seeds |',
    '|---|---|---|---|---|---|',
  ];
  for (const r of rows)
    lines.push(
      `| ${r.system} | ${pct(r.accuracy)} ± ${pct(r.stderr)} | ${pct(r.consensus)} | ${pct(r.agentMean)} | ${r.n} | ${r.seeds} |`,
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

export function agentsTableText(rows: AgentsRow[]): string {
  const head = ['system', 'accuracy %', 'consensus %', 'mean agent %', 'n'];
  const cells = rows.map((r) => [
    r.system,
    `${pct(r.accuracy)} ± ${pct(r.stderr)}`,
    pct(r.consensus),
    pct(r.agentMean),
    String(r.n),
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i].length)));
  const line = (c: string[]) => c.map((x, i) => (i === 0 ? x.padEnd(widths[i]) : x.padStart(widths[i]))).join('  ');
  return [line(head), line(widths.map((w) => '-'.repeat(w))), ...cells.map(line)].join('\n');
}

/** The `--json` shape: rows plus each seed's summary. */
export function agentsJson(name: string, seeds: AgentsSeedSummary[]): object {
  return { experiment: name, kind: 'thought-comm-agents', rows: agentsRows(seeds), seeds };
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
