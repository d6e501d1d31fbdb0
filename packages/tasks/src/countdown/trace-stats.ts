/**
 * What the Countdown search traces a model is trained on look like, before any training: per search
 * order, over generated instances, the dead ends per trace, its length in characters (question,
 * lines and answer, as exampleChars counts them), the share that runs out of the dead-end budget,
 * and how often a trace writes a product of two numbers ≥ 10 (the arithmetic small models get
 * wrong). The numbers behind an arm's choice of order and context length.
 */
import { generateCountdown, type CountdownMeta } from './generate.js';
import {
  isJudgedProduct,
  isLongProduct,
  JUDGED_MARK,
  renderCountdown,
  type CountdownReasoning,
  type RenderOptions,
  type NumberFormat,
  type SearchOrder,
} from './reasoning.js';
import { exampleChars, singleSolutionGuess } from './stream.js';

export interface TraceStatsOptions {
  n: number;
  count: number;
  seed: number;
  reasoning: CountdownReasoning;
  order: SearchOrder;
  maxBacks: number;
  numberFormat: NumberFormat;
  /** RenderOptions.rejectInexact (listed and products-last orders). */
  rejectInexact?: boolean;
  /** RenderOptions.judgeLongProducts (products-last order). */
  judgeLongProducts?: boolean;
}

export interface TraceStats {
  order: SearchOrder;
  count: number;
  /** Mean dead ends ("back" lines other than the return to the start when the budget ran out). */
  deadEnds: number;
  meanChars: number;
  maxChars: number;
  /** Share of traces that used up the budget and wrote the solution after going back to the start. */
  outOfBudget: number;
  /** Mean lines per trace that multiply two numbers ≥ 10. */
  longProducts: number;
  /** Share of traces with at least one such line. */
  withLongProduct: number;
  /** Mean moves per trace judged a dead end without being entered ('search-judged'). */
  judged: number;
  /** Mean long products per trace judged a dead end without being computed ('judgeLongProducts'). */
  judgedProducts: number;
  /**
   * 'search-guess' only: the traces whose solved three-number state has a single solution
   * (singleSolutionGuess; what `singleSolutionShare` asks more of), their share, dead ends and length.
   */
  singleSolution?: { share: number; deadEnds: number; meanChars: number };
}

export function traceStats(o: TraceStatsOptions): TraceStats {
  const examples = generateCountdown({ n: o.n, count: o.count, seed: o.seed, split: 'train' });
  let deadEnds = 0;
  let chars = 0;
  let maxChars = 0;
  let outOfBudget = 0;
  let longProducts = 0;
  let withLongProduct = 0;
  let judged = 0;
  let judgedProducts = 0;
  const single = { count: 0, deadEnds: 0, chars: 0 };
  for (const ex of examples) {
    // Reversing digits keeps every count here: lines, "back"s, marks and how many digits a number has.
    const render: RenderOptions = {
      reasoning: o.reasoning,
      numberFormat: o.numberFormat,
      maxBacks: o.maxBacks,
      searchOrder: o.order,
      rejectInexact: o.rejectInexact ?? false,
      judgeLongProducts: o.judgeLongProducts ?? false,
    };
    const r = renderCountdown(ex, render);
    const c = exampleChars(r);
    chars += c;
    maxChars = Math.max(maxChars, c);
    const backs = r.steps.filter((l) => l.startsWith('back')).length;
    // Out of budget: the budget's dead ends, then one more "back" to the start before the solution.
    const over = (r.meta as CountdownMeta).outOfBudget === true;
    if (over) outOfBudget++;
    deadEnds += over ? backs - 1 : backs;
    if (o.reasoning === 'search-guess' && singleSolutionGuess(r, o.numberFormat)) {
      single.count++;
      single.deadEnds += over ? backs - 1 : backs;
      single.chars += c;
    }
    const products = r.steps.filter(isLongProduct).length;
    longProducts += products;
    if (products > 0) withLongProduct++;
    judged += r.steps.filter((l) => l.endsWith(JUDGED_MARK) && l.includes('[')).length;
    judgedProducts += r.steps.filter(isJudgedProduct).length;
  }
  const k = examples.length;
  return {
    order: o.order,
    count: k,
    deadEnds: deadEnds / k,
    meanChars: chars / k,
    maxChars,
    outOfBudget: outOfBudget / k,
    longProducts: longProducts / k,
    withLongProduct: withLongProduct / k,
    judged: judged / k,
    judgedProducts: judgedProducts / k,
    ...(o.reasoning === 'search-guess'
      ? {
          singleSolution: {
            share: single.count / k,
            deadEnds: single.deadEnds / Math.max(1, single.count),
            meanChars: single.chars / Math.max(1, single.count),
          },
        }
      : {}),
  };
}

export function formatTraceStats(s: TraceStats): string {
  const pct = (x: number) => `${(100 * x).toFixed(1)} %`;
  return [
    `${s.order.padEnd(14)}`,
    `dead ends ${s.deadEnds.toFixed(2)}`,
    `chars ${s.meanChars.toFixed(0)} (max ${s.maxChars})`,
    `out of budget ${pct(s.outOfBudget)}`,
    `long products ${s.longProducts.toFixed(2)}/trace, in ${pct(s.withLongProduct)}`,
    ...(s.judged > 0 ? [`judged ${s.judged.toFixed(2)}/trace`] : []),
    ...(s.judgedProducts > 0 ? [`products judged ${s.judgedProducts.toFixed(2)}/trace`] : []),
    ...(s.singleSolution
      ? [
          `solved state of one solution in ${pct(s.singleSolution.share)} (dead ends ${s.singleSolution.deadEnds.toFixed(2)}, chars ${s.singleSolution.meanChars.toFixed(0)})`,
        ]
      : []),
  ].join('  ');
}
