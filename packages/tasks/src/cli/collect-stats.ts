/**
 * The data behind `npm run -w @telepath/tasks stats`: every split's count and sha256 per task
 * (real files: the file's sha256, checked against the registry; derived and generated splits:
 * the sha256 of the examples written one JSON object per line), and the ProsQA side-by-side
 * statistics of the generated training split against the real valid and test files.
 */
import {
  COUNTDOWN_GENERATOR_VERSION,
  COUNTDOWN_SPLITS,
  countdownTargets,
  DEFAULT_COUNTDOWN_SIZES,
  generateCountdownSplits,
  type CountdownSplit,
} from '../countdown/generate.js';
import { countdownTask } from '../countdown/task.js';
import type { Example } from '../example.js';
import { examplesSha256, type FileCheck, type ReadOptions } from '../files.js';
import { loadGsm8k } from '../gsm8k/load.js';
import { loadGsmHard, loadSvamp } from '../gsm8k/ood.js';
import { gsm8kTask, gsmHardTask, svampTask } from '../gsm8k/task.js';
import type { LoadResult } from '../load-result.js';
import { compareProsqa, type ComparisonRow } from '../prosqa/compare.js';
import { DEFAULT_PROSQA_GEN_CONFIG, generateProsqa, PROSQA_GENERATOR_VERSION } from '../prosqa/generate.js';
import { loadProsqa } from '../prosqa/load.js';
import { prosqaStats, type ProsqaStats } from '../prosqa/stats.js';
import { prosqaTask } from '../prosqa/task.js';

export interface StatsOptions extends ReadOptions {
  /** Size of the generated ProsQA train split (default 17,886, the original's). */
  prosqaCount?: number;
  /** Seed of every generated split (default 0). */
  seed?: number;
  /** Countdown n values (default 3, 4, 5). */
  countdownN?: number[];
  countdownSizes?: Record<CountdownSplit, number>;
}

export interface SplitInfo {
  count: number;
  sha256: string;
  /** 'file': sha256 of the shipped file; 'examples': of the examples, one JSON line each. */
  sha256Of: 'file' | 'examples';
  /** Registered files it was read from (sha256 checked). */
  sources?: { path: string; sha256: string; verified: boolean }[];
  generated?: { generator: string; version: number; seed: number };
  skipped?: number;
}

function fromFile(r: LoadResult): SplitInfo {
  const [f] = r.files;
  return {
    count: r.examples.length,
    sha256: f.sha256,
    sha256Of: 'file',
    sources: r.files.map(src),
    skipped: r.skipped.length,
  };
}

function src(f: FileCheck) {
  return { path: f.path, sha256: f.sha256, verified: !f.changed };
}

function generated(examples: Example[], generator: string, version: number, seed: number): SplitInfo {
  return {
    count: examples.length,
    sha256: examplesSha256(examples),
    sha256Of: 'examples',
    generated: { generator, version, seed },
  };
}

export async function collectStats(o: StatsOptions = {}) {
  const seed = o.seed ?? 0;
  const [train, valid, test, hard, svamp, pValid, pTest] = await Promise.all([
    loadGsm8k('train', o),
    loadGsm8k('valid', o),
    loadGsm8k('test', o),
    loadGsmHard(o),
    loadSvamp(o),
    loadProsqa('valid', o),
    loadProsqa('test', o),
  ]);
  const gsm8k = {
    version: gsm8kTask.version,
    splits: {
      train: {
        count: train.examples.length,
        sha256: examplesSha256(train.examples),
        sha256Of: 'examples',
        sources: train.files.map(src),
        note: 'GSM8K train minus the 500 GSM8k-Aug valid questions ("gsm8k-eq")',
      },
      valid: fromFile(valid),
      test: fromFile(test),
    },
    outOfDistribution: {
      'gsm-hard': { ...fromFile(hard), taskVersion: gsmHardTask.version },
      svamp: { ...fromFile(svamp), taskVersion: svampTask.version },
    },
  };

  const exclude = new Set([...pValid.examples, ...pTest.examples].map((e) => e.question));
  const pTrain = generateProsqa({ count: o.prosqaCount ?? 17_886, seed, exclude });
  const stats = (ex: Example[]): ProsqaStats => prosqaStats(ex);
  const [sGen, sValid, sTest, sReal] = [
    stats(pTrain),
    stats(pValid.examples),
    stats(pTest.examples),
    stats([...pValid.examples, ...pTest.examples]),
  ];
  const rows: ComparisonRow[] = compareProsqa(sGen, sValid, sTest, sReal);
  const prosqa = {
    version: prosqaTask.version,
    splits: {
      train: generated(pTrain, 'prosqa', PROSQA_GENERATOR_VERSION, seed),
      valid: fromFile(pValid),
      test: fromFile(pTest),
    },
    generatorConfig: DEFAULT_PROSQA_GEN_CONFIG,
    comparison: {
      reference: 'real valid + test pooled (800)',
      allWithinTolerance: rows.every((r) => r.ok),
      outOfTolerance: rows.filter((r) => !r.ok).map((r) => r.statistic),
      rows,
    },
  };

  const sizes = o.countdownSizes ?? DEFAULT_COUNTDOWN_SIZES;
  const splits: Record<string, SplitInfo> = {};
  for (const n of o.countdownN ?? [3, 4, 5]) {
    const sets = generateCountdownSplits(n, seed, sizes);
    for (const s of COUNTDOWN_SPLITS)
      splits[`n${n}/${s}`] = generated(sets[s], 'countdown-sos', COUNTDOWN_GENERATOR_VERSION, seed);
  }
  const countdown = { version: countdownTask.version, rules: countdownTask.rules, targets: countdownTargets(), splits };
  return { package: '@telepath/tasks', tasks: { gsm8k, prosqa, countdown } };
}
