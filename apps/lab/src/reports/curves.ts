/**
 * Training curves from the run records: each arm × seed's metrics.jsonl (`<phase>/loss` at every
 * log, `<phase>/val_acc` at the curve's steps; arm-eval.ts), with the steps of later phases placed
 * after the earlier ones (one x axis per arm), drawn as Vega-Lite line charts like the report's
 * other charts. Rebuilt from the records alone, so the same records give the same curves.
 */
import { existsSync, promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { TopLevelSpec } from '@telepath/analysis';
import { samplesDir } from './outcomes.js';
import type { ArmSummary } from '../running/arm-summary.js';

export interface CurvePoint {
  arm: string;
  seed: number;
  phase: string;
  step: number;
  metric: 'loss' | 'val_acc';
  value: number;
}

/** The curve points of one run directory's metrics.jsonl ([] when it has none). */
export async function readCurve(dir: string, arm: string, seed: number): Promise<CurvePoint[]> {
  const file = path.join(dir, 'metrics.jsonl');
  if (!existsSync(file)) return [];
  const raw: { phase: string; step: number; metric: CurvePoint['metric']; value: number }[] = [];
  for (const line of (await fs.readFile(file, 'utf8')).split('\n')) {
    let rec: Record<string, unknown>;
    try {
      rec = JSON.parse(line) as Record<string, unknown>;
    } catch {
      continue; // blank, or a line cut by a crash
    }
    if (typeof rec.step !== 'number') continue;
    for (const [k, v] of Object.entries(rec)) {
      const m = /^(.+)\/(loss|val_acc)$/.exec(k);
      if (m && typeof v === 'number' && m[1] !== 'test')
        raw.push({ phase: m[1], step: rec.step, metric: m[2] as CurvePoint['metric'], value: v });
    }
  }
  // Phases in the order they first appear; each starts where the previous ones ended.
  const phases = [...new Set(raw.map((p) => p.phase))];
  const offset = new Map<string, number>();
  let at = 0;
  for (const ph of phases) {
    offset.set(ph, at);
    at += Math.max(0, ...raw.filter((p) => p.phase === ph).map((p) => p.step));
  }
  // A resumed run logs some steps twice: keep the last value of each (phase, step, metric).
  const byKey = new Map(raw.map((p) => [`${p.phase}|${p.step}|${p.metric}`, p]));
  return [...byKey.values()]
    .map((p) => ({ arm, seed, phase: p.phase, step: offset.get(p.phase)! + p.step, metric: p.metric, value: p.value }))
    .sort((a, b) => a.step - b.step);
}

/** Every arm × seed's curve (a reused arm's from the run that trained it). */
export async function readCurves(runsDir: string, results: ArmSummary[]): Promise<CurvePoint[]> {
  const out: CurvePoint[] = [];
  for (const r of results) out.push(...(await readCurve(samplesDir(runsDir, r), r.arm, r.seed)));
  return out;
}

/** Loss (log scale) or validation accuracy against steps, one line per arm × seed. */
export function curveSpec(points: CurvePoint[], metric: CurvePoint['metric']): TopLevelSpec {
  const values = points
    .filter((p) => p.metric === metric)
    .map((p) => ({
      arm: p.arm,
      run: `${p.arm} s${p.seed}`,
      phase: p.phase,
      step: p.step,
      value: metric === 'val_acc' ? 100 * p.value : p.value,
    }));
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v5.json',
    title:
      metric === 'loss'
        ? 'Training loss (every logged step; later phases after earlier ones)'
        : 'Validation accuracy during training (fixed validation slice)',
    width: 420,
    height: 240,
    data: { values },
    mark: { type: 'line', point: metric === 'val_acc', strokeWidth: 1.5 },
    encoding: {
      x: { field: 'step', type: 'quantitative', title: 'step' },
      y:
        metric === 'loss'
          ? { field: 'value', type: 'quantitative', title: 'loss', scale: { type: 'log' } }
          : { field: 'value', type: 'quantitative', title: 'validation accuracy %', scale: { domain: [0, 100] } },
      color: { field: 'arm', type: 'nominal', legend: { labelLimit: 300 } },
      detail: { field: 'run', type: 'nominal' },
    },
  };
}
