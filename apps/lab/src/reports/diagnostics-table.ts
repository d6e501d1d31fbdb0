/**
 * The breakdown of each table row's written chains (diagnostics.ts): the share of each chain class
 * (syntax error, wrong arithmetic, unavailable numbers, rule violation, misses the target, sound),
 * how often the answer agrees with its chain and generation hit the token cap, and, for ProsQA, the
 * option answered. Rows without diagnostics (latent controls) are left out.
 */
import { CHAIN_CLASSES } from '@telepath/tasks';
import * as aq from 'arquero';
import { diagnosticRates } from '../evaluation/diagnostics.js';
import { pct, type ArmRow } from './table.js';

/** Per-row breakdown of the written chains by class and, for ProsQA, the options answered (shares in %). */
export function diagnosticsRows(rows: ArmRow[]): Record<string, string | number>[] {
  const withD = rows.filter((r) => r.diagnostics);
  const classes = CHAIN_CLASSES.filter((c) => withD.some((r) => c in r.diagnostics!.chains));
  const options = withD.some((r) => r.diagnostics!.options);
  return withD.map((r) => {
    const d = r.diagnostics!;
    const rates = diagnosticRates(d);
    return {
      arm: r.arm,
      'chains checked': rates.checkedChains,
      ...Object.fromEntries(
        classes.map((c) => [
          `${c} %`,
          pct(rates.chains[c as keyof typeof rates.chains] ?? (rates.checkedChains ? 0 : Number.NaN)),
        ]),
      ),
      'agrees %': pct(rates.agrees),
      'reasoning capped %': pct(rates.reasoningCapped),
      'answer capped %': pct(rates.hitCap),
      ...(options
        ? {
            'first option %': pct(rates.options?.first),
            'second option %': pct(rates.options?.second),
            'neither %': pct(rates.options?.neither),
            'less-mentioned %': pct(rates.options?.lessMentioned),
          }
        : {}),
    };
  });
}

export function diagnosticsMarkdown(rows: ArmRow[]): string {
  const d = diagnosticsRows(rows);
  return d.length ? aq.from(d).toMarkdown() : '';
}
