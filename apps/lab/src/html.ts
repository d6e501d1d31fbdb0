/**
 * The experiment's HTML page: a self-contained file (inline SVG charts, inline CSS, no scripts or
 * external requests) with the comparison table, the per-seed table and the charts, which are also
 * written as SVG and PNG beside it.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { ArmSummary } from './run-arm.js';
import { fixed, type ArmRow } from './table.js';

export function accuracySpec(rows: ArmRow[]): object {
  const values = rows.map((r) => ({ arm: r.arm, accuracy: 100 * r.accuracy, lo: 100 * Math.max(0, r.accuracy - r.stderr), hi: 100 * Math.min(1, r.accuracy + r.stderr) }));
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v5.json',
    title: 'Accuracy (± binomial standard error)',
    width: Math.max(240, 70 * rows.length),
    height: 240,
    data: { values },
    layer: [
      { mark: { type: 'bar', color: '#4c78a8' }, encoding: { x: { field: 'arm', type: 'nominal', sort: null, title: null, axis: { labelAngle: -30, labelLimit: 300 } }, y: { field: 'accuracy', type: 'quantitative', title: 'accuracy %', scale: { domain: [0, 100] } } } },
      { mark: { type: 'rule', color: '#222' }, encoding: { x: { field: 'arm', type: 'nominal', sort: null }, y: { field: 'lo', type: 'quantitative' }, y2: { field: 'hi' } } },
      { mark: { type: 'text', dy: -8, fontSize: 11 }, encoding: { x: { field: 'arm', type: 'nominal', sort: null }, y: { field: 'hi', type: 'quantitative' }, text: { field: 'accuracy', type: 'quantitative', format: '.1f' } } },
    ],
  };
}

export function lengthSpec(results: ArmSummary[]): object {
  const values = results.map((r) => ({ arm: r.arm, seed: r.seed, accuracy: 100 * r.accuracy, length: r.reasoningLength }));
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v5.json',
    title: 'Accuracy against reasoning length (one point per seed)',
    width: 360,
    height: 240,
    data: { values },
    mark: { type: 'point', filled: true, size: 80 },
    encoding: {
      x: { field: 'length', type: 'quantitative', title: 'reasoning length (tokens or latents)' },
      y: { field: 'accuracy', type: 'quantitative', title: 'accuracy %', scale: { domain: [0, 100] } },
      color: { field: 'arm', type: 'nominal', legend: { labelLimit: 300 } },
    },
  };
}

function escapeHtml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

function htmlTable(head: string[], rows: (string | number)[][]): string {
  return `<table><thead><tr>${head.map((h) => `<th>${escapeHtml(h)}</th>`).join('')}</tr></thead><tbody>${rows
    .map((r) => `<tr>${r.map((c) => `<td>${escapeHtml(String(c))}</td>`).join('')}</tr>`)
    .join('')}</tbody></table>`;
}

export async function buildHtml(experiment: string, rows: ArmRow[], results: ArmSummary[], out: string): Promise<{ page: string; files: string[] }> {
  await fs.mkdir(out, { recursive: true });
  // Loaded on demand: vega and resvg are heavy, and only reports need them.
  const { renderChart } = await import('@telepath/analysis');
  type Spec = Parameters<typeof renderChart>[0];
  const charts: { name: string; svg: string }[] = [];
  for (const [name, spec] of [['accuracy', accuracySpec(rows)], ['length', lengthSpec(results)]] as const) {
    const { svg, png } = await renderChart(spec as Spec);
    await fs.writeFile(path.join(out, `${name}.svg`), svg);
    await fs.writeFile(path.join(out, `${name}.png`), png);
    charts.push({ name, svg });
  }
  const checked = rows.some((r) => Number.isFinite(r.validReasoning));
  const main = htmlTable(
    ['arm', 'method', 'seeds', 'accuracy %', '± s.e.', 'reasoning length', ...(checked ? ['sound steps %'] : []), 'ms / example', 'train s', 'params', 'n'],
    rows.map((r) => [r.arm, r.method, r.seeds, (100 * r.accuracy).toFixed(1), (100 * r.stderr).toFixed(1), `${r.reasoningLength.toFixed(1)} ${r.reasoningKind === 'none' ? '' : r.reasoningKind}`, ...(checked ? [fixed(100 * r.validReasoning, 1)] : []), fixed(r.msPerExample, 1), fixed(r.trainSeconds, 0), r.params.toLocaleString('en'), r.n]),
  );
  const perSeed = htmlTable(
    ['arm', 'seed', 'accuracy %', 'correct / n', 'reasoning length', 'ms / example', 'train s', 'backend'],
    results.map((r) => [r.arm, r.seed, (100 * r.accuracy).toFixed(1), `${r.correct} / ${r.total}`, r.reasoningLength.toFixed(1), r.msPerExample.toFixed(1), r.trainSeconds.toFixed(0), r.backend]),
  );
  const page = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(experiment)} — Telepath</title>
<style>
body{font-family:"DejaVu Sans",system-ui,sans-serif;margin:2rem auto;max-width:1100px;color:#222;padding:0 1rem}
h1{font-size:1.5rem}h2{font-size:1.15rem;margin-top:2rem}
table{border-collapse:collapse;margin:0.5rem 0;font-size:0.9rem}th,td{border:1px solid #ccc;padding:0.3rem 0.6rem;text-align:right}
th:first-child,td:first-child,th:nth-child(2),td:nth-child(2){text-align:left}thead{background:#f3f3f3}
.charts{display:flex;flex-wrap:wrap;gap:2rem}.chart svg{max-width:100%;height:auto}.meta{color:#666;font-size:0.85rem}
</style></head><body>
<h1>${escapeHtml(experiment)}</h1>
<p class="meta">Built by <code>telepath report</code> from ${results.length} run record(s) on ${new Date().toISOString().slice(0, 10)}. Accuracy is the mean over seeds; ± is the binomial standard error of that mean.</p>
<h2>Comparison</h2>
${main}
<div class="charts">${charts.map((c) => `<figure class="chart" id="chart-${c.name}">${c.svg}</figure>`).join('\n')}</div>
<h2>Per seed</h2>
${perSeed}
</body></html>
`;
  return { page, files: charts.flatMap((c) => [`${c.name}.svg`, `${c.name}.png`]) };
}
