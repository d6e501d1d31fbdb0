import { afterEach, expect, it, vi } from 'vitest';
import { cliErrorText, cliExitCode, main } from '../cli.js';
import { integerOption, OptionError, usageError } from './command-args.js';

afterEach(() => vi.restoreAllMocks());

it('integerOption reads an integer at least the minimum, and names the command, flag and value otherwise', () => {
  expect(integerOption('eval', '--max', '0', 0)).toBe(0);
  expect(integerOption('run', '--workers', '12', 1)).toBe(12);
  for (const raw of ['0', '-3', '1.5', 'two', '', ' ', undefined])
    expect(() => integerOption('run', '--workers', raw, 1, 'processes')).toThrow(OptionError);
  expect(() => integerOption('run', '--workers', '1e', 1, 'processes that split the arms')).toThrow(
    'telepath run --workers: expected an integer ≥ 1 (processes that split the arms), got "1e"',
  );
  expect(() => integerOption('eval', '--max', '-1', 0)).toThrow(
    'telepath eval --max: expected an integer ≥ 0, got "-1"',
  );
});

it('a bad option value is a one-line usage error (exit 2); a failure that is not the options exits 1', () => {
  const bad = new OptionError('telepath eval --max: expected an integer ≥ 0, got "x"');
  expect(cliErrorText(bad)).toBe('telepath: telepath eval --max: expected an integer ≥ 0, got "x"');
  expect(cliExitCode(bad)).toBe(2);
  expect(cliExitCode(Object.assign(new TypeError('Unknown option'), { code: 'ERR_PARSE_ARGS_UNKNOWN_OPTION' }))).toBe(
    2,
  );
  expect(cliExitCode(new Error('no such file'))).toBe(1);
  expect(cliExitCode(new TypeError('x is undefined'))).toBe(1);
});

it('usageError prints the reason and the help to stderr and gives 2; a command with no arguments uses it', async () => {
  const err: string[] = [];
  vi.spyOn(console, 'error').mockImplementation((s: string) => void err.push(s));
  expect(usageError('report', 'expected an experiment name or directory', 'Usage: telepath report …')).toBe(2);
  expect(err[0]).toBe('telepath report: expected an experiment name or directory\n\nUsage: telepath report …');
  expect(await main(['token-loss'])).toBe(2);
  expect(err[1]).toMatch(/^telepath token-loss: expected one run directory\n\nUsage: telepath token-loss/);
});
