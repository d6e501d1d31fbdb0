/**
 * The HTML report renders its charts in a real browser: headless Chromium loads the page (with a
 * probe script appended to a copy), and the probe reports the laid-out size of each chart and how
 * many of its bars, points and labels have a non-empty box.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeReport } from './report.js';
import type { ArmSummary } from '../running/arm-summary.js';

const CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => existsSync(p));

const PROBE = `<script>
const out = [...document.querySelectorAll('figure.chart')].map((f) => {
  const svg = f.querySelector('svg');
  const box = svg ? svg.getBoundingClientRect() : { width: 0, height: 0 };
  const marks = svg ? [...svg.querySelectorAll('path, rect, text')].filter((e) => { const b = e.getBBox(); return b.width > 0 || b.height > 0; }).length : 0;
  const texts = svg ? [...svg.querySelectorAll('text')].map((t) => t.textContent) : [];
  return { id: f.id, width: box.width, height: box.height, marks, texts };
});
const pre = document.createElement('pre'); pre.id = 'probe'; pre.textContent = JSON.stringify(out); document.body.appendChild(pre);
</script>`;

function summary(arm: string, armIndex: number, accuracy: number, reasoningLength: number): ArmSummary {
  return {
    experiment: 'render',
    arm,
    armIndex,
    method: 'cot',
    seed: 0,
    accuracy,
    stderr: 0.03,
    correct: Math.round(200 * accuracy),
    total: 200,
    reasoningLength,
    reasoningKind: 'tokens',
    msPerExample: 5,
    trainSeconds: 60,
    params: 800_000,
    backend: 'cpu',
  };
}

describe('HTML report in headless Chromium', () => {
  it.skipIf(!CHROMIUM && !process.env.CI)(
    'lays out both charts with their bars, points and labels',
    async () => {
      expect(CHROMIUM, 'CI must install Debian chromium (scripts/setup.sh)').toBeDefined();
      const out = mkdtempSync(join(tmpdir(), 'render-'));
      await writeReport([summary('no-cot', 0, 0.31, 0), summary('cot', 1, 0.62, 17.5)], out);
      const page = readFileSync(join(out, 'index.html'), 'utf8').replace('</body>', `${PROBE}</body>`);
      writeFileSync(join(out, 'probe.html'), page);
      const dom = execFileSync(
        CHROMIUM!,
        [
          '--headless',
          '--no-sandbox',
          '--disable-gpu',
          '--disable-dev-shm-usage',
          '--disable-background-networking',
          '--disable-component-update',
          '--disable-sync',
          '--no-first-run',
          `--user-data-dir=${join(out, 'profile')}`,
          '--dump-dom',
          `file://${join(out, 'probe.html')}`,
        ],
        { encoding: 'utf8', timeout: 60_000, stdio: ['ignore', 'pipe', 'ignore'] },
      );
      const m = /<pre id="probe">([^<]*)<\/pre>/.exec(dom);
      expect(m, 'probe output missing from the DOM').not.toBeNull();
      const charts = JSON.parse(m![1].replace(/&quot;/g, '"').replace(/&amp;/g, '&')) as {
        id: string;
        width: number;
        height: number;
        marks: number;
        texts: string[];
      }[];
      expect(charts.map((c) => c.id)).toEqual(['chart-accuracy', 'chart-length']);
      for (const c of charts) {
        expect(c.width, c.id).toBeGreaterThan(200);
        expect(c.height, c.id).toBeGreaterThan(150);
        expect(c.marks, c.id).toBeGreaterThan(10);
      }
      expect(charts[0].texts).toEqual(expect.arrayContaining(['no-cot', 'cot', '62.0']));
    },
    90_000,
  );
});
