/**
 * `npm run -w @telepath/tasks stats -- [--json] [options]`: counts and sha256 of every split per
 * task and the ProsQA generated-vs-real statistics (cli/collect-stats.ts).
 */
import { parseArgs } from 'node:util';
import { intOption } from './options.js';
import { COUNTDOWN_SPLITS, DEFAULT_COUNTDOWN_SIZES, type CountdownSplit } from '../countdown/generate.js';
import { collectStats } from './collect-stats.js';

const HELP = `Usage: npm run -w @telepath/tasks stats -- [options]

Prints every split's count and sha256 per task (GSM8K, GSM-Hard, SVAMP, ProsQA, Countdown) and the
ProsQA generated-vs-real statistics side by side. Shipped files are checked against the sha256 in
datasets/README.md; a changed or missing file is an error naming it.

Options:
  --json                  one JSON object on stdout (default: a readable summary)
  --seed N                seed of the generated splits (default 0)
  --prosqa-count N        size of the generated ProsQA train split (default 17886)
  --countdown-n LIST      Countdown sizes n, comma-separated, 2..6 (default 3,4,5; n=6 takes ≈ 30 ms per instance)
  --countdown-train N     Countdown train size per n (default ${DEFAULT_COUNTDOWN_SIZES.train})
  --countdown-val N       Countdown val size per n (default ${DEFAULT_COUNTDOWN_SIZES.val})
  --countdown-val-target N  Countdown val_target size per n (default ${DEFAULT_COUNTDOWN_SIZES.val_target})
  --datasets DIR          the datasets/ folder (default: the monorepo's, or $TELEPATH_DATASETS)
  --help                  this text`;

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      json: { type: 'boolean' },
      help: { type: 'boolean' },
      seed: { type: 'string' },
      'prosqa-count': { type: 'string' },
      'countdown-n': { type: 'string' },
      'countdown-train': { type: 'string' },
      'countdown-val': { type: 'string' },
      'countdown-val-target': { type: 'string' },
      datasets: { type: 'string' },
    },
  });
  if (values.help) {
    console.log(HELP);
    return;
  }
  const countdownN = (values['countdown-n'] ?? '3,4,5').split(',').map((s) => intOption('countdown-n', s.trim(), 0));
  const sizes: Record<CountdownSplit, number> = {
    train: intOption('countdown-train', values['countdown-train'], DEFAULT_COUNTDOWN_SIZES.train),
    val: intOption('countdown-val', values['countdown-val'], DEFAULT_COUNTDOWN_SIZES.val),
    val_target: intOption('countdown-val-target', values['countdown-val-target'], DEFAULT_COUNTDOWN_SIZES.val_target),
  };
  const started = Date.now();
  const stats = await collectStats({
    seed: intOption('seed', values.seed, 0),
    prosqaCount: intOption('prosqa-count', values['prosqa-count'], 17_886),
    countdownN,
    countdownSizes: sizes,
    datasetsDir: values.datasets,
  });
  if (values.json) {
    console.log(JSON.stringify(stats));
    return;
  }
  const { gsm8k, prosqa, countdown } = stats.tasks;
  const line = (name: string, s: { count: number; sha256: string }) =>
    console.log(`  ${name.padEnd(22)} ${String(s.count).padStart(6)}  ${s.sha256}`);
  console.log(`GSM8K (task v${gsm8k.version})`);
  for (const [k, s] of Object.entries(gsm8k.splits)) line(k, s);
  for (const [k, s] of Object.entries(gsm8k.outOfDistribution)) line(k, s);
  console.log(`ProsQA (task v${prosqa.version})`);
  for (const [k, s] of Object.entries(prosqa.splits)) line(k, s);
  console.log(
    `Countdown (task v${countdown.version}, rules ${countdown.rules}, held-out targets ${countdown.targets.heldOut.join(' ')})`,
  );
  for (const [k, s] of Object.entries(countdown.splits)) line(k, s);
  console.log(`\nProsQA generated train vs real (${prosqa.comparison.reference}):`);
  console.log(
    `  ${'statistic'.padEnd(52)} ${'generated'.padStart(10)} ${'valid'.padStart(10)} ${'test'.padStart(10)} ${'real'.padStart(10)}  tolerance`,
  );
  for (const r of prosqa.comparison.rows) {
    const cell = (x: number | string) => String(x).slice(0, 10).padStart(10);
    console.log(
      `${r.ok ? '  ' : '✗ '}${r.statistic.padEnd(52)} ${cell(r.generated)} ${cell(r.valid)} ${cell(r.test)} ${cell(r.real)}  ${r.tolerance}`,
    );
  }
  console.log(
    `\nall within tolerance: ${prosqa.comparison.allWithinTolerance}   (${((Date.now() - started) / 1000).toFixed(1)} s; splits: ${COUNTDOWN_SPLITS.join(', ')})`,
  );
}

main().catch((e: unknown) => {
  console.error(e instanceof Error ? e.message : e);
  process.exit(1);
});
