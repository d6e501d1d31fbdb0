/**
 * `telepath colar-probe` as the CLI calls it, on a micro CoLaR arm: the three readings in --json,
 * and clear refusals (another method's arm, a record kept without its weights).
 */
import { mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it, vi } from 'vitest';
import { MICRO_SETTINGS } from '../testing.js';
import { colarProbeCommand } from './colar-probe.js';
import { runCommand } from './run.js';

const runs = mkdtempSync(join(tmpdir(), 'lab-colar-probe-'));
const file = join(runs, 'micro-colar.json');
writeFileSync(
  file,
  JSON.stringify({
    name: 'micro-colar',
    ...MICRO_SETTINGS,
    arms: [
      { name: 'no-cot', method: 'cot', config: { variant: 'no-cot', steps: 2 } },
      { name: 'colar', method: 'colar', config: { sftSteps: 2, maxLatents: 3, evalPasses: 1 } },
    ],
  }),
);

afterAll(() => rmSync(runs, { recursive: true, force: true }));

it('probes a finished CoLaR arm; refuses another method and a record without weights', async () => {
  const print = vi.spyOn(console, 'log').mockImplementation(() => {});
  const errors = vi.spyOn(console, 'error').mockImplementation(() => {});
  try {
    expect(await runCommand([file, '--runs', runs, '--backend', 'cpu', '--quiet', '--table-only'])).toBe(0);
    const dir = join(runs, 'micro-colar', 'colar', 's0');
    print.mockClear();
    expect(await colarProbeCommand([dir, '--max', '4', '--speed', '1', '--json', '--backend', 'cpu'])).toBe(0);
    const out = JSON.parse(print.mock.calls.at(-1)![0] as string);
    expect(out.speed).toBe(1);
    expect(out.questions).toBe(4);
    expect(out.groups).toBeGreaterThan(0);
    for (const reading of [out.teacherForced, out.selfFed]) {
      expect(reading.latentError).toBeGreaterThan(0);
      expect(reading.nearestToken).toBeGreaterThanOrEqual(0);
      expect(reading.stopAtEnd).toBeLessThanOrEqual(1);
    }
    expect(out.freeRunning.meanLatents).toBeLessThanOrEqual(3);
    await expect(colarProbeCommand([join(runs, 'micro-colar', 'no-cot', 's0'), '--backend', 'cpu'])).rejects.toThrow(
      /colar-probe reads a colar arm; this arm's method is cot/,
    );
    unlinkSync(join(dir, 'final.ckpt'));
    unlinkSync(join(dir, 'sft.ckpt'));
    await expect(colarProbeCommand([dir, '--backend', 'cpu'])).rejects.toThrow(
      /this record holds no weights \(no final.ckpt, no sft.ckpt\)/,
    );
  } finally {
    print.mockRestore();
    errors.mockRestore();
  }
}, 120_000);
