/**
 * The experiment's HTML page: a self-contained file (inline SVG charts, inline CSS, no scripts or
 * external requests) with the comparison table (paired differences from the baselines), the
 * diagnostics of the generations, the per-seed table, the charts (accuracy, length, training
 * curves; also written as SVG and PNG beside it) and a few correct and incorrect samples per arm.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { TopLevelSpec } from '@telepath/analysis';
import { writeFileAtomic } from '@telepath/core';
import { curveSpec, type CurvePoint } from './curves.js';
import type { ArmSummary } from '../running/arm-summary.js';
import { fixed, pairedText, SPREAD_METHOD, vacuousNotes, type ArmRow } from './table.js';
import { diagnosticsRows } from './diagnostics-table.js';

/** A sample shown on the page. */
export interface ShownSample {
  arm: string;
  seed: number;
  correct: boolean;
  question: string;
  gold: string;
  prediction: string;
  text: string;
}

export interface PageExtras {
  curves?: CurvePoint[];
  samples?: ShownSample[];
}

export function accuracySpec(rows: ArmRow[]): TopLevelSpec {
  const values = rows.map((r) => ({
    arm: r.arm,
    accuracy: 100 * r.accuracy,
    lo: 100 * Math.max(0, r.accuracy - r.stderr),
    hi: 100 * Math.min(1, r.accuracy + r.stderr),
  }));
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v5.json',
    title: 'Accuracy (± the spread in the table: bootstrap over questions and seeds)',
    width: Math.max(240, 70 * rows.length),
    height: 240,
    data: { values },
    layer: [
      {
        mark: { type: 'bar', color: '#4c78a8' },
        encoding: {
          x: { field: 'arm', type: 'nominal', sort: null, title: null, axis: { labelAngle: -30, labelLimit: 300 } },
          y: { field: 'accuracy', type: 'quantitative', title: 'accuracy %', scale: { domain: [0, 100] } },
        },
      },
      {
        mark: { type: 'rule', color: '#222' },
        encoding: {
          x: { field: 'arm', type: 'nominal', sort: null },
          y: { field: 'lo', type: 'quantitative' },
          y2: { field: 'hi' },
        },
      },
      {
        mark: { type: 'text', dy: -8, fontSize: 11 },
        encoding: {
          x: { field: 'arm', type: 'nominal', sort: null },
          y: { field: 'hi', type: 'quantitative' },
          text: { field: 'accuracy', type: 'quantitative', format: '.1f' },
        },
      },
    ],
  };
}

export function lengthSpec(results: ArmSummary[]): TopLevelSpec {
  const values = results.map((r) => ({
    arm: r.arm,
    seed: r.seed,
    accuracy: 100 * r.accuracy,
    length: r.reasoningLength,
  }));
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

const clip = (t: string, n: number) => (t.length > n ? `${t.slice(0, n)} …` : t);

function samplesHtml(samples: ShownSample[]): string {
  const arms = [...new Set(samples.map((s) => s.arm))];
  return arms
    .map((arm) => {
      const items = samples
        .filter((s) => s.arm === arm)
        .map(
          (s) =>
            `<div class="sample ${s.correct ? 'ok' : 'bad'}"><b>${s.correct ? 'correct' : 'incorrect'}</b> (seed ${s.seed})<br><span class="q">${escapeHtml(clip(s.question, 600))}</span><br>gold: <code>${escapeHtml(s.gold)}</code> · answered: <code>${escapeHtml(s.prediction)}</code><pre>${escapeHtml(clip(s.text, 800))}</pre></div>`,
        );
      return `<h3>${escapeHtml(arm)}</h3>\n${items.join('\n')}`;
    })
    .join('\n');
}

export async function buildHtml(
  experiment: string,
  rows: ArmRow[],
  results: ArmSummary[],
  out: string,
  extras: PageExtras = {},
): Promise<{ page: string; files: string[] }> {
  await fs.mkdir(out, { recursive: true });
  // Loaded on demand: vega and resvg are heavy, and only reports need them.
  const { renderChart } = await import('@telepath/analysis');
  const charts: { name: string; svg: string }[] = [];
  const curves = extras.curves ?? [];
  const specs: [string, TopLevelSpec][] = [
    ['accuracy', accuracySpec(rows)],
    ['length', lengthSpec(results)],
  ];
  if (curves.some((p) => p.metric === 'loss')) specs.push(['loss', curveSpec(curves, 'loss')]);
  if (curves.some((p) => p.metric === 'val_acc')) specs.push(['val-acc', curveSpec(curves, 'val_acc')]);
  for (const [name, spec] of specs) {
    const { svg, png } = await renderChart(spec);
    await writeFileAtomic(path.join(out, `${name}.svg`), svg);
    await writeFileAtomic(path.join(out, `${name}.png`), png);
    charts.push({ name, svg });
  }
  const checked = rows.some((r) => Number.isFinite(r.validReasoning));
  const bases = [...new Set(rows.flatMap((r) => r.paired.map((p) => p.baseline)))];
  const main = htmlTable(
    [
      'arm',
      'method',
      'seeds',
      'accuracy %',
      '±',
      ...bases.map((b) => `Δ ${b} (pp) [95 %]`),
      'reasoning length',
      ...(checked ? ['sound steps %'] : []),
      'ms / example',
      'train s',
      'params',
      'n',
    ],
    rows.map((r) => [
      r.arm,
      r.method,
      r.seeds,
      (100 * r.accuracy).toFixed(1),
      `${(100 * r.stderr).toFixed(1)}${r.spread === 'binomial' ? '*' : ''}`,
      ...bases.map((b) => pairedText(r.paired.find((p) => p.baseline === b))),
      `${r.reasoningLength.toFixed(1)} ${r.reasoningKind === 'none' ? '' : r.reasoningKind}`,
      ...(checked ? [fixed(100 * r.validReasoning, 1)] : []),
      fixed(r.msPerExample, 1),
      fixed(r.trainSeconds, 0),
      r.params.toLocaleString('en'),
      r.n,
    ]),
  );
  const vacuous = vacuousNotes(rows);
  const diag = diagnosticsRows(rows);
  const diagnostics = diag.length
    ? htmlTable(
        Object.keys(diag[0]),
        diag.map((d) => Object.values(d)),
      )
    : '';
  const perSeed = htmlTable(
    ['arm', 'seed', 'accuracy %', 'correct / n', 'reasoning length', 'ms / example', 'train s', 'backend'],
    results.map((r) => [
      r.arm,
      r.seed,
      (100 * r.accuracy).toFixed(1),
      `${r.correct} / ${r.total}`,
      r.reasoningLength.toFixed(1),
      r.msPerExample.toFixed(1),
      r.trainSeconds.toFixed(0),
      r.backend,
    ]),
  );
  const page = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(experiment)} — Telepath</title>
<style>
body{font-family:"DejaVu Sans",system-ui,sans-serif;margin:2rem auto;max-width:1100px;color:#222;padding:0 1rem}
h1{font-size:1.5rem}h2{font-size:1.15rem;margin-top:2rem}
table{border-collapse:collapse;margin:0.5rem 0;font-size:0.9rem}th,td{border:1px solid #ccc;padding:0.3rem 0.6rem;text-align:right}
th:first-child,td:first-child,th:nth-child(2),td:nth-child(2){text-align:left}thead{background:#f3f3f3}
.charts{display:flex;flex-wrap:wrap;gap:2rem}.chart svg{max-width:100%;height:auto}.meta{color:#666;font-size:0.85rem}
.sample{border-left:4px solid #ccc;padding:0.3rem 0.8rem;margin:0.6rem 0;font-size:0.85rem}.sample.ok{border-color:#54a24b}.sample.bad{border-color:#e45756}.sample pre{white-space:pre-wrap;background:#f7f7f7;padding:0.4rem}.q{color:#444}
</style></head><body>
<h1>${escapeHtml(experiment)}</h1>
<p class="meta">Built by <code>telepath report</code> from ${results.length} run record(s) on ${new Date().toISOString().slice(0, 10)}. Accuracy is the mean over seeds; ${escapeHtml(SPREAD_METHOD)}</p>
<h2>Comparison</h2>
${main}
${vacuous.length ? `<ul class="meta">${vacuous.map((n) => `<li>${escapeHtml(n)}</li>`).join('')}</ul>` : ''}
${diagnostics ? `<h2>Diagnostics</h2>\n<p class="meta">Written chains by class (% of the chains the task checks), answers agreeing with their chain, generations cut off by the token cap${diag.some((d) => 'first option %' in d) ? ', and the ProsQA option answered (as listed in the question) and whether it is the less-mentioned one' : ''}. – where not recorded.</p>\n${diagnostics}` : ''}
<div class="charts">${charts.map((c) => `<figure class="chart" id="chart-${c.name}">${c.svg}</figure>`).join('\n')}</div>
<h2>Per seed</h2>
${perSeed}
${extras.samples?.length ? `<h2>Samples</h2>\n${samplesHtml(extras.samples)}` : ''}
</body></html>
`;
  return { page, files: charts.flatMap((c) => [`${c.name}.svg`, `${c.name}.png`]) };
}
