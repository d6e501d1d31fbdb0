/**
 * `npx tsx packages/thought-comm/bin/synthetic.ts [options]`: ThoughtComm's synthetic
 * identification experiment ("Thought Communication in Multiagent Collaboration", arXiv
 * 2510.20733; docs/method-reference.md §1.11–1.12). Runs the experiment config, prints a table (or JSON) and
 * writes core run records under runs/thought-comm-synthetic/<timestamp>/.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { describeBackend, initBackend, type BackendCandidate } from '@telepath/core';
import { formatTable, jsonReport, parseSyntheticExperimentConfig, runSyntheticExperiment } from '../src/index.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const DEFAULT_CONFIG = path.join(ROOT, 'experiments/thought-comm-synthetic.json');

const HELP = `Usage: npx tsx packages/thought-comm/bin/synthetic.ts [options]

MCC, support F1 and block R² of the sparse-Jacobian autoencoder against the total state width,
with and without the sparsity term (ThoughtComm, docs/method-reference.md §1.11).
  --config PATH    experiment config (default experiments/thought-comm-synthetic.json)
  --quick          one seed, n_h 128 and 256 only (≈ 2–4 minutes on 2 cores)
  --sizes LIST     comma list of state widths, overriding the config (e.g. 128,1024)
  --seeds LIST     comma list of seeds, overriding the config
  --design NAME    component | block (synthetic design, overriding the config)
  --sampled K      every arm uses the column-sampled Jacobian estimator with K columns
  --penalty NAME   l1 | group | l1+group for every arm (e.g. group for the block design)
  --steps N        training steps of every arm
  --arms LIST      comma list of arm names to run (default: all arms of the config)
  --json           print the JSON report instead of the table
  --out DIR        run-record root (default runs/thought-comm-synthetic/<UTC timestamp>)
  --no-record      write no run records
  --backend NAME   node-gpu | node | native | wasm | cpu (default: fastest available)
  -h, --help       this text`;

const { values } = parseArgs({
  options: {
    config: { type: 'string' },
    quick: { type: 'boolean', default: false },
    sizes: { type: 'string' },
    seeds: { type: 'string' },
    design: { type: 'string' },
    sampled: { type: 'string' },
    penalty: { type: 'string' },
    steps: { type: 'string' },
    arms: { type: 'string' },
    json: { type: 'boolean', default: false },
    out: { type: 'string' },
    'no-record': { type: 'boolean', default: false },
    backend: { type: 'string' },
    help: { type: 'boolean', short: 'h', default: false },
  },
});
if (values.help) {
  console.log(HELP);
  process.exit(0);
}

// "kind" is the lab's dispatch key (apps/lab/src/experiment/kinds.ts), not part of the experiment config.
const { kind: _kind, ...raw } = JSON.parse(await fs.readFile(values.config ?? DEFAULT_CONFIG, 'utf8')) as Record<
  string,
  unknown
>;
const overrides: Record<string, unknown> = { ...raw };
if (values.quick) {
  overrides.stateDims = [128, 256];
  overrides.seeds = [0];
}
if (values.sizes) overrides.stateDims = intList('--sizes', values.sizes);
if (values.seeds) overrides.seeds = intList('--seeds', values.seeds);
if (values.design) overrides.synthetic = { ...((raw.synthetic as object) ?? {}), design: values.design };
const ae: Record<string, unknown> = { ...((raw.autoencoder as object) ?? {}) };
if (values.sampled) ae.jacobianColumns = intList('--sampled', values.sampled)[0];
if (values.penalty) ae.penalty = values.penalty;
if (values.steps) ae.steps = intList('--steps', values.steps)[0];
overrides.autoencoder = ae;
if (values.arms) {
  const names = values.arms.split(',').map((x) => x.trim());
  const all = (raw.arms as { name: string }[] | undefined) ?? [];
  const unknown = names.filter((n) => !all.some((a) => a.name === n));
  if (unknown.length) {
    console.error(`--arms: unknown arm ${unknown.join(', ')}. Expected one of: ${all.map((a) => a.name).join(', ')}`);
    process.exit(2);
  }
  overrides.arms = all.filter((a) => names.includes(a.name));
}
let config: ReturnType<typeof parseSyntheticExperimentConfig>;
try {
  config = parseSyntheticExperimentConfig(overrides);
} catch (e) {
  console.error((e as Error).message);
  process.exit(2);
}

const info = await initBackend(values.backend as BackendCandidate | undefined, { quiet: true });
const log = (m: string) => (values.json ? console.error(m) : console.log(m));
log(describeBackend(info));
const stamp = new Date()
  .toISOString()
  .replace(/[-:]/g, '')
  .replace(/\.\d+Z$/, 'Z');
const outDir = values['no-record'] ? undefined : path.resolve(values.out ?? path.join(ROOT, 'runs', config.id, stamp));
log(
  `${config.arms.length} arms × ${config.stateDims.length} sizes × ${config.seeds.length} seeds; design ${config.synthetic.design}; records: ${outDir ?? 'none'}`,
);
const result = await runSyntheticExperiment(config, { outDir, onProgress: log });
const report = jsonReport(result);
const table = formatTable(result);
if (outDir) {
  await fs.writeFile(path.join(outDir, 'experiment', 'report.json'), JSON.stringify(report, null, 2) + '\n');
  await fs.writeFile(path.join(outDir, 'experiment', 'report.txt'), table + '\n');
}
if (values.json) console.log(JSON.stringify(report, null, 2));
else console.log('\n' + table);

function intList(flag: string, v: string): number[] {
  const out = v.split(',').map((s) => Number(s.trim()));
  if (out.length === 0 || out.some((n) => !Number.isInteger(n) || n < 0)) {
    console.error(`${flag} must be a comma list of non-negative integers, got "${v}"\n\n${HELP}`);
    process.exit(2);
  }
  return out;
}
