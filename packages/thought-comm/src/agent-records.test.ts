import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  exampleTexts,
  initBackend,
  lmConfig,
  Rng,
  saveCheckpoint,
  TinyLm,
  Tokenizer,
  type Example,
} from '@telepath/core';
import { expectNoLeak, toyAdditionExamples } from '@telepath/core/testing';
import { agentRecordDirs, checkRecordVocabulary, loadRecordAgents } from './agent-records.js';
import { parseAgentsExperimentConfig } from './agents-config.js';
import { runAgentsExperiment } from './agents-experiment.js';
import { TINY_AGENTS_EXPERIMENT as TINY } from './testing.js';

const runs = mkdtempSync(join(tmpdir(), 'tc-agent-records-'));
const examples = toyAdditionExamples(30);
const tokenizer = Tokenizer.build(exampleTexts(examples));
const config = lmConfig({ vocabSize: tokenizer.size, contextLength: 32, layers: 2, heads: 2, width: 8, initStd: 0.2 });

/** A finished run's folder as `telepath run --weights` keeps it: model.json, tokenizer.json, final.ckpt of an LM from `seed`. */
async function writeRecord(dir: string, seed: number, tok = tokenizer): Promise<number[]> {
  mkdirSync(dir, { recursive: true });
  const lm = new TinyLm(config, new Rng(seed), 'record');
  writeFileSync(join(dir, 'model.json'), JSON.stringify(config));
  await tok.save(join(dir, 'tokenizer.json'));
  await saveCheckpoint({ path: join(dir, 'final.ckpt'), params: lm.params, modelConfig: config, step: 10 });
  const wte = Array.from(await lm.params.get('wte')!.data());
  lm.dispose();
  return wte;
}

beforeAll(async () => {
  await initBackend('cpu', { quiet: true });
});
afterAll(() => rmSync(runs, { recursive: true, force: true }));

describe('agents from kept run records', () => {
  it('each agent holds its record’s weights; one folder serves every agent, {seed} names the run seed', async () => {
    const [a, b] = [await writeRecord(join(runs, 'ref', 's0'), 7), await writeRecord(join(runs, 'ref', 's1'), 8)];
    expect(a).not.toEqual(b);
    expect(agentRecordDirs(['ref/s{seed}'], 3, 1, runs)).toEqual(Array(3).fill(join(runs, 'ref', 's1')));
    expect(agentRecordDirs(['ref/s0', 'ref/s1'], 2, 5, runs)).toEqual([join(runs, 'ref/s0'), join(runs, 'ref/s1')]);
    const loaded = await loadRecordAgents([join(runs, 'ref', 's0'), join(runs, 'ref', 's1')], 0);
    const values = await Promise.all(loaded.lms.map(async (lm) => Array.from(await lm.params.get('wte')!.data())));
    expect(values[0]).toEqual(a);
    expect(values[1]).toEqual(b);
    expect(loaded.tokenizer.tokens).toEqual(tokenizer.tokens);
    expect(loaded.config).toEqual(config);
    loaded.lms.forEach((lm) => lm.dispose());
  });

  it('says which file is missing or differs, and which text the tokenizer cannot write', async () => {
    await writeRecord(join(runs, 'bare', 's0'), 1);
    rmSync(join(runs, 'bare', 's0', 'final.ckpt'));
    await expect(loadRecordAgents([join(runs, 'bare', 's0')], 0)).rejects.toThrow(/bare\/s0 has no final\.ckpt/);
    const other = Tokenizer.build(exampleTexts([{ id: 'x', question: 'sub 9 1', steps: [], answer: '8' }]));
    await writeRecord(join(runs, 'other', 's0'), 2, other);
    await expect(loadRecordAgents([join(runs, 'ref', 's0'), join(runs, 'other', 's0')], 0)).rejects.toThrow(
      /other\/s0\/tokenizer\.json differs/,
    );
    const foreign: Example = { id: 'f', question: 'multiply 2 3', steps: [], answer: '6' };
    expect(() => checkRecordVocabulary(tokenizer, [...examples, foreign], 'ref/s0')).toThrow(/"multiply 2 3"/);
    expect(() => checkRecordVocabulary(tokenizer, examples, 'ref/s0')).not.toThrow();
    // a word answer is written after a space (### bompus), so only the spaced token need exist
    const word: Example = { id: 'w', question: 'Tom is a bompus ?', steps: [], answer: 'bompus' };
    const words = Tokenizer.build(exampleTexts([word]));
    expect(words.encode('bompus')).toContain(words.unkId);
    expect(() => checkRecordVocabulary(words, [word], 'ref/s0')).not.toThrow();
  });

  it('the config takes one folder for copies, one per agent when separate, never with a pretrained LM or text debate', () => {
    const parse = (o: object) => parseAgentsExperimentConfig({ ...TINY, ...o });
    expect(() => parse({ agentsFrom: ['a', 'b'], agentInit: 'copies' })).toThrow(
      /"copies" takes one agentsFrom folder/,
    );
    expect(() => parse({ agentsFrom: ['a'], agentInit: 'separate' })).toThrow(
      /one agentsFrom folder per agent \(3\), got 1/,
    );
    expect(() => parse({ agentsFrom: ['a'], agentInit: 'copies', textDebate: true })).toThrow(/textDebate/);
    expect(() => parse({ agentsFrom: [''], agentInit: 'copies' })).toThrow(/non-empty strings/);
    expect(parse({ agentsFrom: ['a/s{seed}'], agentInit: 'copies' }).agentsFrom).toEqual(['a/s{seed}']);
  });

  it(
    'an experiment from one record trains no agent, and its copies answer alike in round 0',
    { timeout: 120_000 },
    async () => {
      const c = parseAgentsExperimentConfig({ ...TINY, agentsFrom: ['ref/s{seed}'], agentInit: 'copies', seeds: [1] });
      const data = {
        train: examples.slice(0, 24),
        test: examples.slice(24),
        isCorrect: (ex: Example, answer: string) => (ex.answer === answer ? 1 : 0),
        hashes: { toy: 'x' },
      };
      const out = join(runs, 'agents');
      const r = await expectNoLeak(() => runAgentsExperiment(c, data, { outDir: out, recordsDir: runs }));
      const s = r.seeds[0];
      expect(s.agentsFrom).toEqual(Array(3).fill(join(runs, 'ref', 's1')));
      expect(s.agentTrainExamples).toBe(0);
      expect(existsSync(join(out, 's1', 'agent0.ckpt'))).toBe(false); // nothing trained
      expect(existsSync(join(out, 's1', 'tokenizer.json'))).toBe(true);
      expect(s.independent.consensus).toBe(1); // three copies of one LM, greedy: one answer per question
    },
  );
});
