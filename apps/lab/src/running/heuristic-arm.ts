/**
 * Heuristic arms (`"method": "heuristic", "config": { "rule": "<name>" }`): a task's fixed rule
 * (@telepath/tasks' `taskHeuristics`: ProsQA less-mentioned / first-listed / chance, Countdown
 * sum / greedy, GSM8K last-number) answers the test questions with no model and no training. They
 * are evaluated, recorded and tabled like trained arms (samples, diagnostics, summary), so every
 * table of a task shows what a trivial rule scores; `chance` draws from the seed's Rng.
 */
import { currentBackend, RunRecord, SPECIAL_TOKENS, parseConfig, type Generation } from '@telepath/core';
import { taskHeuristics, type TaskName } from '@telepath/tasks';
import { evaluateTestSets } from '../evaluation/arm-eval.js';
import type { Answerer } from '../evaluation/evaluate.js';
import type { ArmSummary } from './arm-summary.js';
import type { RunArmOptions } from './run-arm.js';

export const HEURISTIC = 'heuristic';

/** A heuristic arm's config: `rule` must name one of the task's heuristics. */
export function heuristicConfig(task: string, raw: unknown, where: string): Record<string, unknown> {
  const c = parseConfig({ rule: '' }, raw ?? {}, where);
  const rules = Object.keys(taskHeuristics(task as TaskName));
  if (!rules.includes(c.rule))
    throw new Error(
      `${where} "rule": unknown heuristic ${JSON.stringify(c.rule)} for ${task}. Expected one of: ${rules.join(', ') || '(none)'}`,
    );
  return c;
}

/** Generations of rule `rule`: the chain (if the rule writes one) before `###`, ending with <eos>. */
export function heuristicAnswerer(task: TaskName, rule: string): Answerer {
  const h = taskHeuristics(task)[rule];
  return async (batch, o) =>
    batch.map((ex, i): Generation & { chain: string | null } => {
      const a = h.answer(ex, o.rng!.fork(`example/${i}`));
      const chain = a.chain.length ? a.chain.join('\n') : null;
      return {
        id: ex.id,
        answer: a.answer,
        text: `${chain ? `${chain}\n` : ''}### ${a.answer}${SPECIAL_TOKENS.eos}`,
        chain,
        reasoningLength: 0,
        reasoningKind: 'none',
      };
    });
}

export async function runHeuristicArm(
  o: RunArmOptions,
  dir: string,
  resolved: object,
): Promise<ArmSummary | 'interrupted'> {
  const { exp, arm, seed, data } = o;
  const record = await RunRecord.open(dir, resolved, { resume: true, datasets: data.hashes });
  const answer = heuristicAnswerer(data.task.name, arm.config.rule as string);
  const sets = await evaluateTestSets(answer, data, { ...exp.eval, maxNewTokens: 0 }, dir, {
    label: `${arm.name} s${seed}`,
    seed,
    shouldStop: o.shouldStop,
    quiet: true,
  });
  if (sets === 'interrupted') return sets;
  const ev = sets.main;
  const summary: ArmSummary = {
    experiment: exp.name,
    arm: arm.name,
    armIndex: exp.arms.findIndex((a) => a.name === arm.name),
    method: HEURISTIC,
    seed,
    accuracy: ev.accuracy,
    stderr: ev.stderr,
    correct: ev.correct,
    total: ev.total,
    reasoningLength: 0,
    reasoningKind: 'none',
    msPerExample: ev.msPerExample,
    trainSeconds: 0,
    params: 0,
    backend: currentBackend()?.backend ?? 'none',
    ...(ev.validReasoning !== null
      ? { validReasoning: ev.validReasoning, reasoningVerdicts: ev.reasoningVerdicts }
      : {}),
    diagnostics: ev.diagnostics,
    ...(Object.keys(sets.tests).length ? { tests: sets.tests } : {}),
  };
  await record.log(0, { 'test/acc': ev.accuracy });
  await record.finish(summary);
  return summary;
}
