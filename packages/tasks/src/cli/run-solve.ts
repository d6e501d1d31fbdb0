/** The work behind the `solve` command, separate from argument parsing so it can be tested. */
import { loadCountdownJsonl } from '../countdown/load.js';
import type { CountdownMeta } from '../countdown/generate.js';
import type { CountdownRules } from '../countdown/rules.js';
import { solveCountdown } from '../countdown/solver.js';
import { verifyCountdown } from '../countdown/verify.js';

export interface SolveSummary {
  total: number;
  solvable: number;
  verified: number;
  skipped?: number;
}

/** total = instances read; solvable = the solver found a solution; verified = the verifier accepted it as expression and as steps. */
export async function runSolve(file: string, rules: CountdownRules, skipBad: boolean): Promise<SolveSummary> {
  const r = await loadCountdownJsonl(file, { rules, skipBad });
  let solvable = 0;
  let verified = 0;
  for (const ex of r.examples) {
    const { nums, target } = ex.meta as CountdownMeta;
    const sol = solveCountdown(nums, target, rules);
    if (!sol) continue;
    solvable++;
    if (verifyCountdown(nums, target, sol.expression, rules).ok && verifyCountdown(nums, target, sol.steps, rules).ok)
      verified++;
  }
  const out: SolveSummary = { total: r.examples.length, solvable, verified };
  if (skipBad) out.skipped = r.skipped.length;
  return out;
}
