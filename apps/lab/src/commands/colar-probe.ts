/**
 * `telepath colar-probe <run dir>`: a finished CoLaR arm's exposure probe (@telepath/colar's
 * `exposureProbe`) on the gold chains of its test set: teacher-forced, self-fed one step ahead,
 * and decoding alone.
 */
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { describeBackend, initBackend, Rng, type BackendCandidate } from '@telepath/core';
import { exposureProbe, type ColarState, type ProbeInputs } from '@telepath/colar';
import { armData } from '../experiment/arm-settings.js';
import { loadTaskData } from '../experiment/data.js';
import { maxNewTokensOf } from '../running/build-arm.js';
import { readFinishedRun, restoreFinishedRun } from '../running/restore-run.js';
import { integerOption, printHelp, usageError } from './command-args.js';

const HELP = `Usage: telepath colar-probe <run dir> [--max N] [--speed C] [--json] [--backend NAME]

Where a finished CoLaR arm loses its chain, on the first N test questions with a gold chain
(default 100; 0: all), at speed C (default: the arm's compressionFactor). Three readings of the
same questions:
  teacher-forced  the true compressed chain as input (what SFT trains on)
  self-fed        every reasoning group replaced by the head's latent for it, predicted from the
                  true prefix (one step of the model's own latents)
  free-running    greedy decoding alone, as evaluation decodes (latents until the stop or the cap)
For the first two: the head's latent error |mu*s - e| / |e| against the true next compressed
embedding (mean over the chain, and at the opening ### alone: the first latent decoded, the same
in both readings since its prefix is the prompt), how often it is nearest the true next token
(c = 1 only), and the LM head's mean probability of the stop (###) before the chain's end and at
it. For the third: the share of questions whose chain stops before the cap, and the latents used
(the gold chain's length beside them). Whether the model reads the speed: how far the head's
first latent moves when only the prompt's speed changes (to 1, or from 1 to the arm's
maxCompressionFactor), beside how far the true first group moves (|x_c - x_other| / |x_c|, mean
over questions). At c = 1 also the first three questions' chains decoded alone, each latent read
as its nearest token, beside their gold chains.`;

const pct = (x: number | null) => (x === null ? '–' : `${(100 * x).toFixed(1)} %`);

function line(name: string, p: ProbeInputs): string {
  return `${name.padEnd(16)} latent error ${p.latentError.toFixed(3)} (first ${p.firstLatentError.toFixed(3)})  nearest token ${pct(p.nearestToken)}  p(###) early ${p.stopEarly.toFixed(4)}  at the end ${p.stopAtEnd.toFixed(3)}`;
}

export async function colarProbeCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      max: { type: 'string', default: '100' },
      speed: { type: 'string', default: '0' },
      json: { type: 'boolean', default: false },
      backend: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) return printHelp(HELP);
  if (positionals.length !== 1) return usageError('colar-probe', 'expected one run directory', HELP);
  const max = integerOption('colar-probe', '--max', values.max, 0, '0: all');
  const speedOption = integerOption('colar-probe', '--speed', values.speed, 0, "0: the arm's compressionFactor");
  const dir = path.resolve(positionals[0]);
  const resolved = await readFinishedRun(dir, { weightsOnly: true });
  if (resolved.arm.method !== 'colar')
    throw new Error(`${dir}: colar-probe reads a colar arm; this arm's method is ${resolved.arm.method}`);
  const info = await initBackend(values.backend as BackendCandidate | undefined, { quiet: true });
  console.error(describeBackend(info));
  const data = await loadTaskData(resolved.task, armData(resolved, resolved.arm));
  const withChains = data.test.filter((ex) => ex.steps.length > 0);
  if (withChains.length === 0)
    throw new Error(
      `${dir}: its test set has no gold chains (${data.test.length} questions), so there is nothing to probe`,
    );
  const questions = max > 0 ? withChains.slice(0, max) : withChains;
  const { state } = await restoreFinishedRun(dir, resolved, questions);
  const colar = state as ColarState;
  try {
    const speed = speedOption > 0 ? speedOption : colar.config.compressionFactor;
    const probe = await exposureProbe(colar, questions, {
      speed,
      maxNewTokens: maxNewTokensOf(resolved, resolved.arm),
      rng: new Rng(resolved.seed).fork('colar-probe'),
    });
    if (values.json) {
      console.log(JSON.stringify({ run: dir, ...probe }));
      return 0;
    }
    console.log(
      `${resolved.arm.name} s${resolved.seed} at c = ${speed}: ${probe.questions} test questions, ${probe.groups.toFixed(1)} reasoning groups each on the gold chain`,
    );
    console.log(line('teacher-forced', probe.teacherForced));
    console.log(line('self-fed', probe.selfFed));
    console.log(
      `${'free-running'.padEnd(16)} stopped before the cap ${pct(probe.freeRunning.stopped)}  latents ${probe.freeRunning.meanLatents.toFixed(1)}`,
    );
    if (probe.speedShift)
      console.log(
        `${'speed read?'.padEnd(16)} prompt speed ${speed} against ${probe.speedShift.other}: the first latent moves ${pct(probe.speedShift.head)}, the true first group ${pct(probe.speedShift.gold)}`,
      );
    const text = (ids: number[]) => JSON.stringify(colar.tokenizer.decode(ids));
    for (const [q, r] of probe.freeRunning.readouts.entries()) {
      console.log(`question ${q + 1}, gold chain (${r.gold.length} tokens): ${text(r.gold)}`);
      console.log(`question ${q + 1}, decoded alone, nearest tokens (${r.read.length} latents): ${text(r.read)}`);
    }
    return 0;
  } finally {
    state.dispose();
  }
}
