import { writeLatentTrace } from '@telepath/core';
import { forEachBackend } from '@telepath/core/testing';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { analyzeTrace } from './analyze.js';
import { heatmapSpec, renderChart } from './chart.js';
import { analyzeRun } from './report.js';
import { syntheticSlots } from './testing.js';

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

it('renderChart turns a vega-lite heatmap into SVG with its text and a PNG', async () => {
  const spec = heatmapSpec(
    [
      [1, 0.25],
      [0.5, Number.NaN],
    ],
    ['a', 'b'],
    ['a', 'b'],
    { title: 'Test heatmap', subtitle: 'sub' },
  );
  const { svg, png } = await renderChart(spec);
  expect(svg.startsWith('<svg')).toBe(true);
  expect(svg).toContain('Test heatmap');
  expect(svg).toContain('0.25');
  expect([...png.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  expect(png.length).toBeGreaterThan(2000);
});

forEachBackend(
  (backend, ready) => {
    it(`analyzeTrace on shared/private slots gives the expected summary (${backend})`, async (ctx) => {
      if (!ready()) return ctx.skip();
      const t = syntheticSlots({
        slots: 4,
        rows: 400,
        width: 24,
        sharedRank: 4,
        privateRank: 2,
        noise: 0.001,
        separation: 4,
        sharedCorrelation: 0.9,
        seed: 7,
      });
      const a = await analyzeTrace(t, { pca: { varianceThreshold: 0.99 } });
      expect(a.summary.hOff).toBeGreaterThan(0.6); // shared variance 4 of 6 (+ the mean offset is removed by centring)
      expect(a.summary.hOff).toBeLessThan(0.73);
      expect(a.summary.meanK).toBe(6);
      expect(a.summary.hOffBaseline).toBeCloseTo(6 / 24, 12);
      expect(a.summary.silhouetteEuclidean).toBeGreaterThan(0.1); // separated means
      expect(a.summary.ckaOff).toBeGreaterThan(0.3);
      expect(a.summary.affinityOff).toBeCloseTo(4 / 6, 2); // 4 shared of 6 directions
      expect(a.angles[0][1].slice(0, 4).every((d) => d < 5)).toBe(true); // the 4 shared directions
      expect(a.slotStats.map((s) => s.k)).toEqual([6, 6, 6, 6]);
      expect(a.crossCapture.map((r, i) => r[i])).toEqual(
        [1, 1, 1, 1].map((v) => expect.closeTo(v, 3) as unknown as number),
      );
      const noCka = await analyzeTrace(t, { pca: { varianceThreshold: 0.99 }, cka: false });
      expect(noCka.cka).toBeNull();
      expect(noCka.summary.ckaOff).toBeNaN();
      expect(noCka.summary.hOff).toBeCloseTo(a.summary.hOff, 10);
    });

    it(`analyzeRun reads latents.bin and writes the tables and heatmaps (${backend})`, async (ctx) => {
      if (!ready()) return ctx.skip();
      const dir = mkdtempSync(join(tmpdir(), 'telepath-analysis-'));
      dirs.push(dir);
      await writeLatentTrace(
        join(dir, 'latents.bin'),
        syntheticSlots({ slots: 3, rows: 60, width: 12, sharedRank: 2, privateRank: 2, seed: 1 }),
      );
      const r = await analyzeRun(dir);
      const names = r.files.map((f) => f.slice(join(dir, 'analysis').length + 1)).sort();
      expect(names).toEqual([
        'cka.png',
        'cka.svg',
        'cross-capture.png',
        'cross-capture.svg',
        'subspace-slots.csv',
        'subspace.json',
        'subspace.md',
      ]);
      r.files.forEach((f) => expect(existsSync(f)).toBe(true));
      const md = readFileSync(join(dir, 'analysis', 'subspace.md'), 'utf8');
      expect(md).toContain('H_off (mean off-diagonal cross-capture)');
      expect(md).toContain('|slot0|60|12|');
      expect(r.table.numRows()).toBe(3);
      const json = JSON.parse(readFileSync(join(dir, 'analysis', 'subspace.json'), 'utf8'));
      expect(json.summary.hOff).toBeCloseTo(r.analysis.summary.hOff, 12);
      expect(readFileSync(join(dir, 'analysis', 'subspace-slots.csv'), 'utf8').split('\n')[0]).toContain(
        'slot,rows,width,k',
      );
    });

    it(`analyzeRun leaves out slots with too few vectors and says so (${backend})`, async (ctx) => {
      if (!ready()) return ctx.skip();
      const dir = mkdtempSync(join(tmpdir(), 'telepath-analysis-'));
      dirs.push(dir);
      const t = syntheticSlots({ slots: 3, rows: 60, width: 12, sharedRank: 2, privateRank: 2, seed: 1 });
      const short = t.slots[2];
      t.slots[2] = { ...short, rows: 1, vectors: short.vectors.slice(0, short.width) }; // a late CoLaR slot: one example got that far
      await writeLatentTrace(join(dir, 'latents.bin'), t);
      const r = await analyzeRun(dir, { charts: false });
      expect(r.droppedSlots).toEqual([{ name: short.name, rows: 1 }]);
      expect(r.table.numRows()).toBe(2);
      expect(readFileSync(join(dir, 'analysis', 'subspace.md'), 'utf8')).toContain(
        `Left out (fewer than 10 vectors): ${short.name} (1)`,
      );
      await expect(analyzeRun(dir, { minSlotRows: 100, charts: false })).rejects.toThrow(
        /every latent slot has fewer than 100 vectors/,
      );
    });

    it(`analyzeRun names the missing file (${backend})`, async (ctx) => {
      if (!ready()) return ctx.skip();
      await expect(analyzeRun('/nonexistent-run-dir')).rejects.toThrow(/latents\.bin/);
    });
  },
  ['cpu', 'wasm'],
);
