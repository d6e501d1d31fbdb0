import { describe, expect, it } from 'vitest';
import type { AgentsSeedSummary } from './agents-experiment.js';
import { agentsRows, agentsTableMarkdown, agentsTableText, VOTE_ROW, type RowBootstrap } from './agents-report.js';

/** A seed that answered 400 questions: two agents, no debates. */
const seed = (majority: number) =>
  ({
    independent: { agents: [0.5, 0.5], majority, consensus: 0.7, n: 400 },
    debates: {},
  }) as unknown as AgentsSeedSummary;

describe('agents table', () => {
  it("gives a row the mean of its seeds' binomial SEs: seeds answer the same questions, so more of them do not shrink it", () => {
    const vote = (seeds: AgentsSeedSummary[]) => agentsRows(seeds).find((r) => r.system === VOTE_ROW)!;
    expect(vote([seed(0.5)]).stderr).toBeCloseTo(0.025, 12);
    expect(vote([seed(0.5), seed(0.5), seed(0.5)]).stderr).toBeCloseTo(0.025, 12);
    expect(vote([seed(0.5), seed(0.9)]).stderr).toBeCloseTo((0.025 + 0.015) / 2, 12);
  });

  it('shows the bootstrap sd in place of the binomial SE and the paired difference from the vote where given', () => {
    const rows = agentsRows([seed(0.5)]);
    expect(agentsTableMarkdown(rows)).toContain(`| ${VOTE_ROW} | 50.0 ± 2.5 | 70.0 |`);
    const bootstrap = new Map<string, RowBootstrap>([
      [VOTE_ROW, { sd: 0.031 }],
      ['single agent (agent 0)', { sd: 0.02, vsVote: { diff: 0, lo: -0.012, hi: 0.034 } }],
    ]);
    const md = agentsTableMarkdown(rows, [], bootstrap);
    expect(md).toContain('± bootstrap sd');
    expect(md).toContain(`| ${VOTE_ROW} | 50.0 ± 3.1 | – |`);
    expect(md).toContain('| single agent (agent 0) | 50.0 ± 2.0 | +0.0 [−1.2, +3.4] |');
    expect(agentsTableText(rows, bootstrap)).toMatch(/accuracy % ± sd/);
  });
});
