/**
 * Experiment kinds: dispatch on "kind", --set overrides, ThoughtComm's synthetic and agents kinds on
 * micro configs (records, JSON with mcc / supportF1 / blockR2 per arm and size, read-back).
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exampleTexts, initBackend, lmConfig, Rng, saveCheckpoint, TinyLm, Tokenizer } from '@telepath/core';
import { beforeAll, describe, expect, it } from 'vitest';
import { TINY_AGENTS_EXPERIMENT } from '@telepath/thought-comm/testing';
import { EXPERIMENT_KINDS, readKind, type KindRunOptions } from './kinds.js';
import { loadTaskData, parseData } from './data.js';

beforeAll(async () => {
  await initBackend('cpu', { quiet: true });
});

const dir = mkdtempSync(join(tmpdir(), 'lab-kinds-'));
const write = (name: string, o: object) => {
  const f = join(dir, name);
  writeFileSync(f, JSON.stringify(o));
  return f;
};
const opts = (file: string): KindRunOptions => ({
  file,
  runsDir: join(dir, 'runs'),
  json: true,
  force: false,
  shouldStop: () => false,
  log: () => {},
});

const SYNTHETIC = {
  kind: 'thought-comm-synthetic',
  id: 'syn-micro',
  seeds: [0],
  stateDims: [42],
  trainSamples: 200,
  testSamples: 100,
  synthetic: { stateDim: 42, sharedByAll: 1, sharedByPair: 1, privatePerAgent: 1 },
  autoencoder: { encoderHidden: [8], decoderHidden: [8], steps: 10, batch: 32, penaltyDelay: 0, penaltyRamp: 0 },
};

/** thought-comm's tiny agents experiment (agents, autoencoder, adapters in seconds), with one task adapter and one control. */
const { name: _tinyName, ...TINY_AGENTS } = TINY_AGENTS_EXPERIMENT;
const MICRO_AGENTS = { ...TINY_AGENTS, commExamples: 20, objectives: ['task'], controls: ['random'] };

describe('experiment kinds', () => {
  it('an arms experiment has no kind; an unknown kind lists the valid ones; --set applies to the kind config', async () => {
    expect(await readKind(write('arms.json', { name: 'x', task: 'countdown' }), [])).toBeNull();
    await expect(readKind(write('bad.json', { kind: 'thought-com' }), [])).rejects.toThrow(
      /Expected one of: thought-comm-synthetic, thought-comm-agents/,
    );
    const k = await readKind(write('syn.json', SYNTHETIC), ['autoencoder.steps=3']);
    expect(k?.kind).toBe('thought-comm-synthetic');
    expect((k?.raw.autoencoder as { steps: number }).steps).toBe(3);
    expect(k?.raw).not.toHaveProperty('kind');
  });

  it('thought-comm-synthetic reports mcc, supportF1 and blockR2 per arm and size, and reads finished runs back', async () => {
    const k = (await readKind(write('syn.json', SYNTHETIC), []))!;
    const r = await EXPERIMENT_KINDS[k.kind].run(k.raw, opts('syn.json'));
    const arms = (
      r.json as { arms: Record<string, Record<string, { mcc: number; supportF1: number; blockR2: number }>> }
    ).arms;
    expect(Object.keys(arms)).toEqual(['sparse', 'no-sparsity']);
    for (const a of Object.values(arms))
      for (const key of ['mcc', 'supportF1', 'blockR2'] as const) expect(Number.isFinite(a['42'][key])).toBe(true);
    expect(existsSync(join(dir, 'runs', 'syn-micro', 'sparse', 'n42', 's0', 'summary.json'))).toBe(true);
    expect(readFileSync(join(dir, 'runs', 'syn-micro', 'table.md'), 'utf8')).toContain('sparse');
    const again = await EXPERIMENT_KINDS[k.kind].run(k.raw, opts('syn.json'));
    expect((again.json as { arms: unknown }).arms).toEqual(arms);
  });

  it('thought-comm-agents runs on a task through the lab data and scoring and writes its table', async () => {
    const raw = {
      name: 'agents-micro',
      task: 'countdown',
      data: { n: 3, trainCount: 40, testCount: 6, seed: 0 },
      ...MICRO_AGENTS,
    };
    const r = await EXPERIMENT_KINDS['thought-comm-agents'].run(raw, opts('agents.json'));
    expect(r.interrupted).toBe(false);
    expect(r.text).toContain('majority vote, no communication');
    expect(r.text).toContain('thought-comm task, round 1 [random]');
    const table = readFileSync(join(dir, 'runs', 'agents-micro', 'table.md'), 'utf8');
    expect(table).toContain('| single agent (agent 2) |');
    expect(table).toContain('− vote, points [paired 95 %]');
    expect(table).toMatch(/\| majority vote, no communication \| [0-9.]+ ± [0-9.]+ \| – \|/); // the vote is the baseline
    expect(r.text).toMatch(/single agent \(agent 0\) +[0-9.]+ ± [0-9.]+ +[+−][0-9.]+ \[[+−][0-9.]+, [+−][0-9.]+\]/);
    const env = JSON.parse(readFileSync(join(dir, 'runs', 'agents-micro', 's0', 'env.json'), 'utf8'));
    expect(JSON.stringify(env)).toContain('countdown-n3/train');
    await expect(
      EXPERIMENT_KINDS['thought-comm-agents'].run({ ...raw, task: 'chess' }, opts('agents.json')),
    ).rejects.toThrow(/Expected one of: countdown, gsm8k, prosqa/);
  });
  it('thought-comm-agents starts its agents from kept run records trained on the same data, and refuses others', async () => {
    const data = { n: 3, trainCount: 40, testCount: 6, seed: 0 };
    const resolved = parseData('countdown', data, 'test');
    const loaded = await loadTaskData('countdown', resolved);
    const tokenizer = Tokenizer.build(exampleTexts(loaded.train));
    const config = lmConfig({ vocabSize: tokenizer.size, contextLength: 64, layers: 2, heads: 2, width: 8 });
    /** A finished No-CoT run as `telepath run --weights` keeps it, trained on `recordData`. */
    const writeRecord = async (name: string, recordData: object, task = 'countdown') => {
      const d = join(dir, 'runs', 'refs', name, 's0');
      mkdirSync(d, { recursive: true });
      writeFileSync(join(d, 'config.resolved.json'), JSON.stringify({ task, data: recordData }));
      writeFileSync(join(d, 'model.json'), JSON.stringify(config));
      await tokenizer.save(join(d, 'tokenizer.json'));
      const lm = new TinyLm(config, new Rng(3), 'ref');
      await saveCheckpoint({ path: join(d, 'final.ckpt'), params: lm.params, modelConfig: config, step: 1 });
      lm.dispose();
    };
    await writeRecord('no-cot', { ...resolved, trainCount: 4000, warmupSteps: 6000 }); // training-only keys may differ
    await writeRecord('plain', { ...resolved, numberFormat: 'other' });
    await writeRecord('prosqa', resolved, 'prosqa');
    const raw = {
      name: 'agents-from-refs',
      task: 'countdown',
      data,
      agentsFrom: ['refs/no-cot/s{seed}'],
      agentInit: 'copies',
      ...MICRO_AGENTS,
    };
    const r = await EXPERIMENT_KINDS['thought-comm-agents'].run(raw, opts('refs.json'));
    const seed = (r.json as { seeds: { agentsFrom: string[]; agentTrainExamples: number }[] }).seeds[0];
    expect(seed.agentsFrom).toEqual(Array(3).fill(join(dir, 'runs', 'refs', 'no-cot', 's0')));
    expect(seed.agentTrainExamples).toBe(0);
    const run = (from: string) =>
      EXPERIMENT_KINDS['thought-comm-agents'].run({ ...raw, name: from, agentsFrom: [from] }, opts('refs.json'));
    await expect(run('refs/plain/s{seed}')).rejects.toThrow(
      /refs\/plain\/s0 was trained on other data: data\.numberFormat "other" there/,
    );
    await expect(run('refs/prosqa/s{seed}')).rejects.toThrow(/trained on task prosqa, this experiment is countdown/);
    await expect(run('refs/missing/s{seed}')).rejects.toThrow(/refs\/missing\/s0 is not a finished run record/);
  });
});
