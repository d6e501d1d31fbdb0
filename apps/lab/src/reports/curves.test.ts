import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { curveSpec, readCurve } from './curves.js';

it('reads loss and validation accuracy per phase, later phases after earlier ones, a resumed step once', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'curve-'));
  const lines = [
    { step: 1, 'sft/loss': 3, 'sft/lr': 0.1 },
    { step: 1, 'sft/val_acc': 0.1 },
    { step: 2, 'sft/loss': 2.5 },
    { step: 2, 'sft/loss': 2.4 }, // logged again after a resume: the later value counts
    { step: 2, 'sft/val_acc': 0.2 },
    { step: 1, 'rl/loss': 1 },
    { step: 3, 'rl/loss': 0.5, 'rl/val_acc': 0.4 },
    { step: 1, 'test/acc': 0.3 },
  ];
  writeFileSync(join(dir, 'metrics.jsonl'), lines.map((l) => JSON.stringify(l)).join('\n') + '\n{"step": 4, "rl/lo');
  const points = await readCurve(dir, 'a', 0);
  const of = (metric: string) => points.filter((p) => p.metric === metric).map((p) => [p.phase, p.step, p.value]);
  expect(of('loss')).toEqual([
    ['sft', 1, 3],
    ['sft', 2, 2.4],
    ['rl', 3, 1],
    ['rl', 5, 0.5],
  ]);
  expect(of('val_acc')).toEqual([
    ['sft', 1, 0.1],
    ['sft', 2, 0.2],
    ['rl', 5, 0.4],
  ]);
  const spec = curveSpec(points, 'val_acc') as { data: { values: { value: number; run: string }[] } };
  expect(spec.data.values.map((v) => v.value)).toEqual([10, 20, 40]);
  expect(spec.data.values[0].run).toBe('a s0');
  expect(await readCurve(join(dir, 'none'), 'a', 0)).toEqual([]);
});
