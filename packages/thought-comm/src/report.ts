/**
 * Plain-text and JSON views of the synthetic identification experiment ("Thought Communication in
 * Multiagent Collaboration", arXiv 2510.20733; docs/method-reference.md §1.11 Fig. 4 table form): one row per
 * state width, per arm MCC, support F1 and block R² as mean ± sd over seeds.
 */
import type { Stat, SyntheticExperimentResult } from './experiment.js';

/** The `--json` shape: per arm and state width, the headline metrics (means) and their seeds. */
export interface SyntheticJsonReport {
  id: string;
  seeds: number[];
  stateDims: number[];
  targets: { mcc: number; supportF1: number };
  targetsMet: boolean;
  seconds: number;
  arms: Record<
    string,
    Record<
      string,
      {
        mcc: number;
        mccSpearman: number;
        supportF1: number;
        blockSupportF1: number;
        blockR2: number;
        reconstruction: number;
        perSeed: { mcc: number[]; supportF1: number[]; blockR2: number[] };
      }
    >
  >;
  dir: string | null;
}

export function jsonReport(r: SyntheticExperimentResult): SyntheticJsonReport {
  const arms: SyntheticJsonReport['arms'] = {};
  for (const [arm, cells] of Object.entries(r.byArm)) {
    arms[arm] = {};
    for (const [n, c] of Object.entries(cells)) {
      arms[arm][n] = {
        mcc: c.mcc.mean,
        mccSpearman: c.mccSpearman.mean,
        supportF1: c.supportF1.mean,
        blockSupportF1: c.blockSupportF1.mean,
        blockR2: c.blockR2.mean,
        reconstruction: c.reconstruction.mean,
        perSeed: { mcc: c.mcc.values, supportF1: c.supportF1.values, blockR2: c.blockR2.values },
      };
    }
  }
  const c = r.config;
  return {
    id: c.id,
    seeds: c.seeds,
    stateDims: c.stateDims,
    targets: c.targets,
    targetsMet: r.targetsMet,
    seconds: r.seconds,
    arms,
    dir: r.dir,
  };
}

const fmt = (s: Stat) => (s.values.length > 1 ? `${s.mean.toFixed(3)}±${s.sd.toFixed(3)}` : s.mean.toFixed(3));

export function formatTable(r: SyntheticExperimentResult): string {
  const c = r.config;
  const arms = c.arms.map((a) => a.name);
  const cols = ['MCC', 'F1', 'blockR2'];
  const width = 13;
  const head1 = 'n_h'.padEnd(6) + arms.map((a) => `| ${a}`.padEnd(cols.length * width + 1)).join('');
  const head2 = ''.padEnd(6) + arms.map(() => '| ' + cols.map((x) => x.padEnd(width)).join('')).join('');
  const lines = [head1, head2, '-'.repeat(head2.length)];
  for (const n of c.stateDims) {
    let line = String(n).padEnd(6);
    for (const a of arms) {
      const cell = r.byArm[a][n];
      line += '| ' + [cell.mcc, cell.supportF1, cell.blockR2].map((s) => fmt(s).padEnd(width)).join('');
    }
    lines.push(line);
  }
  const first = arms[0];
  lines.push('');
  lines.push(
    `seeds ${c.seeds.join(', ')}; MCC = Pearson MCC (Hungarian), F1 = element support F1 after matching, blockR2 = R² of true vs recovered agent groups.`,
  );
  lines.push(
    `target for "${first}": MCC ≥ ${c.targets.mcc} and F1 ≥ ${c.targets.supportF1} at every size → ${r.targetsMet ? 'MET' : 'NOT MET'}; ${r.seconds.toFixed(0)} s in all.`,
  );
  return lines.join('\n');
}
