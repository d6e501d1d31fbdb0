/**
 * An arm that starts from another's weights (`initFrom`) reads its text with that arm's tokenizer
 * when the two hold the same tokens, whatever order a rebuild would rank them in; with other tokens
 * it is refused, as before.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { initBackend } from '@telepath/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validateExperiment } from '../experiment/experiment.js';
import { MICRO_SETTINGS } from '../testing.js';
import { runExperiment } from './run-experiment.js';

const quiet = { quiet: true, log: () => {} };
const source = { name: 'cot', method: 'cot', config: { variant: 'cot', steps: 2 } };
const micro = (arms: object[]) => validateExperiment({ name: 'micro', ...MICRO_SETTINGS, arms }, 'micro.json');

describe('initFrom and the tokenizer', () => {
  const runs = mkdtempSync(join(tmpdir(), 'init-tokenizer-'));
  const tokenizerOf = (arm: string) => join(runs, 'micro', arm, 's0', 'tokenizer.json');
  let original = '';
  beforeAll(async () => {
    await initBackend('cpu', { quiet: true });
    await runExperiment(micro([source]), { runsDir: runs, ...quiet });
    original = readFileSync(tokenizerOf('cot'), 'utf8');
  });
  afterAll(() => rmSync(runs, { recursive: true, force: true }));

  /** The source's tokenizer with its last two tokens changed by `edit` (as if built when the counts differed). */
  const editSource = (edit: (tokens: string[]) => void) => {
    const json = JSON.parse(original) as { tokens: string[] };
    edit(json.tokens);
    writeFileSync(tokenizerOf('cot'), JSON.stringify(json) + '\n');
  };
  const n = () => (JSON.parse(original) as { tokens: string[] }).tokens.length;

  it("keeps the source's ids when only the ranking differs", async () => {
    editSource((t) => ([t[n() - 2], t[n() - 1]] = [t[n() - 1], t[n() - 2]]));
    await runExperiment(micro([source, { name: 'more', method: 'cot', initFrom: 'cot', config: source.config }]), {
      runsDir: runs,
      ...quiet,
    });
    expect(readFileSync(tokenizerOf('more'), 'utf8')).toBe(readFileSync(tokenizerOf('cot'), 'utf8'));
    expect(readFileSync(tokenizerOf('more'), 'utf8')).not.toBe(original); // the swapped order, not a rebuild
  });

  it('refuses a source whose tokens are not this arm’s', async () => {
    editSource((t) => (t[n() - 1] = ' zzzzz'));
    const run = runExperiment(
      micro([source, { name: 'other', method: 'cot', initFrom: 'cot', config: source.config }]),
      { runsDir: runs, ...quiet },
    );
    await expect(run).rejects.toThrow(/initFrom: tokenizer.json of .*cot\/s0 differs from this arm's/);
  });
});
