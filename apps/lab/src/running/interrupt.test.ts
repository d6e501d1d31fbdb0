import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const ROOT = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../../..');

/**
 * A process that asks for Ctrl-C (stopOnCtrlC), then runs 1.5 s of synchronous work, as a
 * training step on the native backend does, and checks the request after it, as the training
 * loop does; it prints what it would do.
 */
function busyStep(dir: string): string {
  const file = join(dir, 'busy-step.ts');
  writeFileSync(
    file,
    `import { stopOnCtrlC } from ${JSON.stringify(join(ROOT, 'apps/lab/src/running/interrupt.ts'))};
const stop = stopOnCtrlC();
console.log('stepping');
const until = Date.now() + 1500;
while (Date.now() < until) {} // one long synchronous step
setTimeout(() => console.log(stop.requested() ? 'checkpointed' : 'not asked'), 100); // the next step's check
`,
  );
  return file;
}

it('Ctrl-C during a long synchronous step under `node --import tsx` (as npm run telepath runs the lab) stops after the step, once, with its checkpoint', async () => {
  const file = busyStep(mkdtempSync(join(tmpdir(), 'interrupt-')));
  // Its own process group, as a terminal's foreground job: Ctrl-C signals every process in it.
  const child = spawn(process.execPath, ['--import', 'tsx', file], { cwd: ROOT, detached: true });
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (err += d));
  await new Promise<void>((done) => child.stdout.once('data', () => done()));
  process.kill(-child.pid!, 'SIGINT');
  const code = await new Promise<number | null>((done) => child.on('exit', (c) => done(c)));
  expect(out).toBe('stepping\ncheckpointed\n');
  expect(err).toContain('stopping after the current step');
  expect(code).toBe(0);
});

it("runs the lab's long commands in one process: the tsx CLI would SIGKILL a child busy in a step for more than 60 ms after Ctrl-C", () => {
  // tsx's CLI relays a signal to its child and kills it with SIGKILL when the child has not
  // acknowledged it within ≈ 60 ms, which a synchronous training step never does: no checkpoint.
  const scripts = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> })
    .scripts;
  for (const name of ['start', 'telepath'])
    expect(scripts[name]).toMatch(/\bnode --import tsx apps\/lab\/src\/cli\.ts\b/);
});
