/** Every config in experiments/ loads and validates (plain, sweep or kind), so a broken one fails CI, not a run. */
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { loadExperiment } from './load-experiment.js';
import { readKind } from './kinds.js';
import { loadSweep } from './sweep.js';

const dir = fileURLToPath(new URL('../../../../experiments/', import.meta.url));

it('every shipped experiment config validates, with its large and gpt2 profiles where it has them', async () => {
  const files = readdirSync(dir).filter((f) => f.endsWith('.json'));
  expect(files.length).toBeGreaterThan(10);
  for (const f of files) {
    const file = `${dir}${f}`;
    if (await readKind(file, [])) continue;
    const sweep = await loadSweep(file);
    const plain = sweep ? null : await loadExperiment(file);
    expect(sweep?.experiments.length ?? plain!.arms.length, f).toBeGreaterThan(0);
    const raw = JSON.parse(readFileSync(file, 'utf8')) as { profiles?: Record<string, unknown> };
    for (const profile of ['large', 'gpt2']) {
      if (!raw.profiles?.[profile]) continue;
      const sets = [`profile=${profile}`];
      const loaded = sweep ? (await loadSweep(file, sets))!.experiments : [await loadExperiment(file, sets)];
      for (const e of loaded) {
        expect(e.name.endsWith(`-${profile}`) || e.name.includes(`-${profile}-`), f).toBe(true);
        if (profile === 'gpt2')
          expect(e.lm, f).toMatchObject({
            pretrained: 'models/gpt2',
            layers: 12,
            heads: 12,
            width: 768,
            positions: 'learned',
          });
      }
    }
  }
});
