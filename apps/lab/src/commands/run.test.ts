/**
 * `telepath run` as the CLI calls it, on a micro experiment: the table always, the HTML report unless
 * --table-only (the way to rebuild the table of a directory of kept records without writing pages);
 * in a directory of kept records, nothing written without --table-only.
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it, vi } from 'vitest';
import { KEPT_RECORDS_MARKER } from '../running/run-experiment.js';
import { MICRO_SETTINGS } from '../testing.js';
import { runCommand } from './run.js';

const runs = mkdtempSync(join(tmpdir(), 'lab-run-'));
const file = join(runs, 'micro-run.json');
writeFileSync(
  file,
  JSON.stringify({
    name: 'micro-run',
    ...MICRO_SETTINGS,
    arms: [{ name: 'no-cot', method: 'cot', config: { variant: 'no-cot', steps: 2 } }],
  }),
);

afterAll(() => rmSync(runs, { recursive: true, force: true }));

it('--table-only writes the table but no report; without it the report is written too', async () => {
  const print = vi.spyOn(console, 'log').mockImplementation(() => {});
  const errors = vi.spyOn(console, 'error').mockImplementation(() => {});
  try {
    const args = [file, '--runs', runs, '--backend', 'cpu', '--quiet'];
    expect(await runCommand([...args, '--table-only'])).toBe(0);
    expect(existsSync(join(runs, 'micro-run', 'table.md'))).toBe(true);
    expect(existsSync(join(runs, 'micro-run', 'no-cot', 's0', 'summary.json'))).toBe(true);
    expect(existsSync(join(runs, 'micro-run', 'report'))).toBe(false);

    expect(await runCommand(args)).toBe(0); // reads the finished arm back, then writes the report
    expect(existsSync(join(runs, 'micro-run', 'report', 'index.html'))).toBe(true);
  } finally {
    print.mockRestore();
    errors.mockRestore();
  }
}, 60_000);

it('a finished run beside unfinished records of its experiment succeeds and says the report waits for them', async () => {
  const print = vi.spyOn(console, 'log').mockImplementation(() => {});
  const errors = vi.spyOn(console, 'error').mockImplementation(() => {});
  const unfinished = join(runs, 'micro-run', 'cot', 's0');
  mkdirSync(unfinished, { recursive: true }); // another arm's run, started and not finished
  try {
    expect(await runCommand([file, '--runs', runs, '--backend', 'cpu', '--quiet'])).toBe(0);
    const lines = errors.mock.calls.map((c) => String(c[0]));
    expect(lines.filter((l) => l.includes('report not rebuilt'))).toEqual([
      expect.stringMatching(
        /report not rebuilt: 1 arm × seed record\(s\) of micro-run are not finished \(cot s0 \(.*not finished\)\); `telepath report micro-run --allow-missing`/,
      ),
    ]);
  } finally {
    rmSync(join(runs, 'micro-run', 'cot'), { recursive: true, force: true });
    print.mockRestore();
    errors.mockRestore();
  }
}, 60_000);

it('reads kept records back without rewriting their table, unless --table-only asks for it', async () => {
  const print = vi.spyOn(console, 'log').mockImplementation(() => {});
  const errors = vi.spyOn(console, 'error').mockImplementation(() => {});
  const kept = join(runs, 'kept');
  try {
    mkdirSync(kept);
    cpSync(join(runs, 'micro-run'), join(kept, 'micro-run'), { recursive: true });
    rmSync(join(kept, 'micro-run', 'report'), { recursive: true, force: true });
    writeFileSync(join(kept, KEPT_RECORDS_MARKER), '');
    const table = join(kept, 'micro-run', 'table.md');
    writeFileSync(table, 'the kept table\n'); // what a full rebuild once wrote
    const args = [file, '--runs', kept, '--backend', 'cpu', '--quiet'];
    expect(await runCommand([...args, '--json'])).toBe(0);
    expect(await runCommand(args)).toBe(0);
    expect(readFileSync(table, 'utf8')).toBe('the kept table\n');
    expect(existsSync(join(kept, 'micro-run', 'report'))).toBe(false);
    expect(await runCommand([...args, '--table-only'])).toBe(0);
    expect(readFileSync(table, 'utf8')).toMatch(/^\|arm\|/);
  } finally {
    print.mockRestore();
    errors.mockRestore();
  }
}, 60_000);
