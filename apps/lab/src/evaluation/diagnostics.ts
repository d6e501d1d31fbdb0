/**
 * Per-arm diagnostics of the generations, as counts (so seeds add up) in summary.json:
 * the written chains by class (sound, syntax, wrong arithmetic, …; @telepath/tasks' `chainClass`),
 * how many answers agree with their chain, how many generations hit the token cap, how many
 * reasoning chains (written or latent) were cut by their cap, and for ProsQA
 * how often each listed option (or neither) was answered. Records written before these existed are
 * read through `diagnosticsOf`, which rebuilds what their summary still holds (the chain verdicts)
 * and leaves the rest unknown (null).
 */
import { chainClass, type ChainClass, type ChainDiagnosis } from '@telepath/tasks';

export interface Diagnostics {
  /** Samples scored. */
  total: number;
  /** Samples with a written chain the task checks, by class. */
  chains: Partial<Record<ChainClass, number>>;
  /** Samples with a written chain, and of those the answers that agree with it (null: not recorded). */
  withChain: number | null;
  agrees: number | null;
  /** Generations cut off by the token cap (null: not recorded). */
  hitCap: number | null;
  /** Reasoning chains cut by their cap, written or latent (null or absent: not recorded; records before 2026-12-05). */
  reasoningCapped?: number | null;
  /** ProsQA: answers naming the first- or second-listed option, neither, and the less-mentioned one. */
  options?: { first: number; second: number; neither: number; lessMentioned: number };
}

export function emptyDiagnostics(): Diagnostics {
  return { total: 0, chains: {}, withChain: 0, agrees: 0, hitCap: 0, reasoningCapped: 0 };
}

export function tallyDiagnosis(d: Diagnostics, s: ChainDiagnosis, hitCap: boolean, reasoningCapped: boolean): void {
  d.total++;
  if (s.chain) d.chains[s.chain] = (d.chains[s.chain] ?? 0) + 1;
  if (s.agrees !== null) {
    d.withChain = (d.withChain ?? 0) + 1;
    if (s.agrees) d.agrees = (d.agrees ?? 0) + 1;
  }
  if (hitCap) d.hitCap = (d.hitCap ?? 0) + 1;
  if (reasoningCapped) d.reasoningCapped = (d.reasoningCapped ?? 0) + 1;
  if (s.option) {
    d.options ??= { first: 0, second: 0, neither: 0, lessMentioned: 0 };
    d.options[s.option]++;
    if (s.lessMentioned) d.options.lessMentioned++;
  }
}

/** What a summary records, or (older records) what its chain verdicts still tell. */
export function diagnosticsOf(r: {
  total: number;
  diagnostics?: Diagnostics;
  reasoningVerdicts?: Record<string, number>;
}): Diagnostics {
  if (r.diagnostics) return r.diagnostics;
  const chains: Diagnostics['chains'] = {};
  for (const [reason, n] of Object.entries(r.reasoningVerdicts ?? {}))
    chains[chainClass(reason)] = (chains[chainClass(reason)] ?? 0) + n;
  return { total: r.total, chains, withChain: null, agrees: null, hitCap: null, reasoningCapped: null };
}

/** Diagnostics of several seeds added up (a count unknown in any seed is unknown). */
export function sumDiagnostics(ds: Diagnostics[]): Diagnostics {
  const add = (f: (d: Diagnostics) => number | null) =>
    ds.some((d) => f(d) === null) ? null : ds.reduce((a, d) => a + f(d)!, 0);
  const chains: Diagnostics['chains'] = {};
  for (const d of ds)
    for (const [k, n] of Object.entries(d.chains)) chains[k as ChainClass] = (chains[k as ChainClass] ?? 0) + n;
  const out: Diagnostics = {
    total: ds.reduce((a, d) => a + d.total, 0),
    chains,
    withChain: add((d) => d.withChain),
    agrees: add((d) => d.agrees),
    hitCap: add((d) => d.hitCap),
    reasoningCapped: add((d) => d.reasoningCapped ?? null),
  };
  if (ds.length && ds.every((d) => d.options)) {
    out.options = { first: 0, second: 0, neither: 0, lessMentioned: 0 };
    for (const d of ds)
      for (const k of ['first', 'second', 'neither', 'lessMentioned'] as const) out.options[k] += d.options![k];
  }
  return out;
}

/** Rates for tables: share of checked chains per class, agreement among chains, capped and option shares (NaN where unknown). */
export function diagnosticRates(d: Diagnostics) {
  const checked = Object.values(d.chains).reduce((a, n) => a + n, 0);
  const share = (n: number | null | undefined, of: number | null) =>
    n === null || n === undefined || !of ? Number.NaN : n / of;
  return {
    checkedChains: checked,
    chains: Object.fromEntries(Object.entries(d.chains).map(([k, n]) => [k, share(n, checked)])) as Partial<
      Record<ChainClass, number>
    >,
    agrees: share(d.agrees, d.withChain),
    hitCap: share(d.hitCap, d.total),
    reasoningCapped: share(d.reasoningCapped, d.total),
    ...(d.options
      ? {
          options: {
            first: d.options.first / d.total,
            second: d.options.second / d.total,
            neither: d.options.neither / d.total,
            lessMentioned: d.options.lessMentioned / d.total,
          },
        }
      : {}),
  };
}
