import { cpSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { initBackend, Rng } from '@telepath/core';
import { analyzeExperiment, meanSd } from './analyze-experiment.js';
import { analyzeCommand } from '../commands/analyze.js';

const SAMPLE = resolve(__dirname, '../../../../docs/notebooks/data/sample-run/latents.bin');

/** A finished arm × seed: its summary.json, and the sample run's latents where `latents`. */
function run(
  dir: string,
  s: { experiment: string; arm: string; armIndex: number; seed: number; kind: string; reusedFrom?: string },
  latents: boolean,
): void {
  mkdirSync(dir, { recursive: true });
  const summary = {
    experiment: s.experiment,
    arm: s.arm,
    armIndex: s.armIndex,
    method: 'm',
    seed: s.seed,
    accuracy: 0.5,
    stderr: 0.1,
    correct: 1,
    total: 2,
    reasoningLength: 4,
    reasoningKind: s.kind,
    msPerExample: 1,
    trainSeconds: 1,
    params: 1,
    backend: 'cpu',
    ...(s.reusedFrom ? { reusedFrom: s.reusedFrom } : {}),
  };
  writeFileSync(join(dir, 'summary.json'), JSON.stringify(summary));
  if (latents) cpSync(SAMPLE, join(dir, 'latents.bin'));
}

describe('analyzeExperiment', () => {
  let runs: string;
  beforeAll(async () => {
    await initBackend('cpu', { quiet: true });
    runs = mkdtempSync(join(tmpdir(), 'analyze-exp-'));
    const exp = join(runs, 'exp');
    run(join(exp, 'no-cot', 's0'), { experiment: 'exp', arm: 'no-cot', armIndex: 0, seed: 0, kind: 'tokens' }, false);
    run(join(exp, 'soft', 's0'), { experiment: 'exp', arm: 'soft', armIndex: 1, seed: 0, kind: 'latents' }, true);
    run(join(exp, 'soft', 's1'), { experiment: 'exp', arm: 'soft', armIndex: 1, seed: 1, kind: 'latents' }, true);
    run(join(exp, 'lost', 's0'), { experiment: 'exp', arm: 'lost', armIndex: 2, seed: 0, kind: 'latents' }, false);
    // A reused arm: its summary here, its latents in the run of the experiment that trained it.
    run(
      join(exp, 'borrowed', 's0'),
      { experiment: 'exp', arm: 'borrowed', armIndex: 3, seed: 0, kind: 'latents', reusedFrom: 'src/trained' },
      false,
    );
    run(
      join(runs, 'src', 'trained', 's0'),
      { experiment: 'src', arm: 'trained', armIndex: 0, seed: 0, kind: 'latents' },
      true,
    );
  });

  it("analyses every latent arm × seed, reads a reused arm's latents from its source, and names what it could not analyse", async () => {
    const seen: string[] = [];
    const res = await analyzeExperiment(join(runs, 'exp'), {
      varianceThreshold: 0.9,
      cka: true,
      onRun: (d) => seen.push(d),
    });
    expect(res.arms.map((a) => [a.arm, a.seeds])).toEqual([
      ['soft', [0, 1]],
      ['borrowed', [0]],
    ]);
    expect(seen).toEqual([
      join(runs, 'exp', 'soft', 's0'),
      join(runs, 'exp', 'soft', 's1'),
      join(runs, 'src', 'trained', 's0'),
    ]);
    expect(res.skipped).toEqual([{ run: join(runs, 'exp', 'lost', 's0'), reason: 'no latents.bin' }]);
    // The same latents give the same statistics, so the two seeds' sd is 0.
    const soft = res.arms[0];
    expect(soft.hOff[0]).toBeGreaterThan(0);
    expect(soft.hOff[1]).toBe(soft.hOff[0]);
    const single = JSON.parse(readFileSync(join(runs, 'exp', 'soft', 's0', 'analysis', 'subspace.json'), 'utf8'));
    expect(single.summary.hOff).toBeCloseTo(soft.hOff[0], 12);
    const md = readFileSync(join(runs, 'exp', 'analysis', 'subspace-arms.md'), 'utf8');
    expect(md).toContain(`|soft|0, 1|${soft.slots[0]}|${soft.hOff[0].toFixed(2)} ± 0.00|`);
    expect(md).toContain(`- ${join(basename(runs), 'exp', 'lost', 's0')}: no latents.bin`);
    expect(
      readFileSync(join(runs, 'exp', 'analysis', 'subspace-arms.csv'), 'utf8')
        .trim()
        .split('\n'),
    ).toHaveLength(4);
  }, 120_000);

  it("writes the table's note and what it could not analyse when no run could be analysed", async () => {
    run(
      join(runs, 'none', 'lost', 's0'),
      { experiment: 'none', arm: 'lost', armIndex: 0, seed: 0, kind: 'latents' },
      false,
    );
    const res = await analyzeExperiment(join(runs, 'none'), { varianceThreshold: 0.9, cka: false });
    expect(res.arms).toEqual([]);
    expect(res.markdown).toContain('(no run could be analysed)');
    expect(res.markdown).toContain(`- ${join(basename(runs), 'none', 'lost', 's0')}: no latents.bin`);
  });

  it('the CLI takes an experiment name under --runs, and refuses a directory with nothing to analyse', async () => {
    expect(await analyzeCommand(['exp', '--runs', runs, '--backend', 'cpu', '--no-cka'])).toBe(0);
    await expect(analyzeCommand([join(runs, 'exp', 'no-cot', 's0'), '--backend', 'cpu'])).rejects.toThrow(
      /has no latents\.bin/,
    );
    await expect(analyzeCommand([join(runs, 'src', 'trained'), '--backend', 'cpu'])).rejects.toThrow(
      /not an experiment with a finished latent arm/,
    );
    await expect(analyzeCommand(['nope', '--runs', runs])).rejects.toThrow(/neither a run directory nor an experiment/);
  }, 120_000);
});

describe('meanSd', () => {
  it('gives mean ± sample sd of the finite values and says how many seeds had one', () => {
    expect(meanSd([1, 2, 3])).toBe('2.00 ± 1.00');
    expect(meanSd([0.5])).toBe('0.50');
    expect(meanSd([0.2, Number.NaN, 0.4])).toBe('0.30 ± 0.14 (2 of 3)');
    expect(meanSd([Number.NaN])).toBe('–');
  });

  it('writes what the two-pass loop it replaced wrote (sum / n; sd with n − 1), on 1,500 seeded lists with gaps', () => {
    // The formula before issue 27 (arquero groupby/rollup now), as the reference.
    const loop = (xs: number[]): string => {
      const v = xs.filter(Number.isFinite);
      if (v.length === 0) return '–';
      const mean = v.reduce((a, b) => a + b, 0) / v.length;
      const sd = v.length > 1 ? Math.sqrt(v.reduce((a, b) => a + (b - mean) ** 2, 0) / (v.length - 1)) : Number.NaN;
      const text = Number.isFinite(sd) ? `${mean.toFixed(2)} ± ${sd.toFixed(2)}` : mean.toFixed(2);
      return v.length < xs.length ? `${text} (${v.length} of ${xs.length})` : text;
    };
    const rng = new Rng(27);
    for (let i = 0; i < 1500; i++) {
      const xs = Array.from({ length: 1 + Math.floor(rng.float() * 6) }, () =>
        rng.float() < 0.1 ? Number.NaN : Math.round(rng.float() * 1000) / 1000,
      );
      expect(meanSd(xs)).toBe(loop(xs));
    }
    expect(meanSd([Number.POSITIVE_INFINITY, 0.5])).toBe('0.50 (1 of 2)');
  });
});
