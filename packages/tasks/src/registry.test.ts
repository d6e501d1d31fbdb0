import { promises as fs } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultDatasetsDir, readDatasetFile } from './files.js';
import { DATASET_FILE_KEYS, DATASET_FILES } from './registry.js';

const dir = defaultDatasetsDir();
const fmt = (n: number) => n.toLocaleString('en-US');

describe('dataset registry', () => {
  it('agrees with datasets/README.md, each PROVENANCE.md and each manifest.json', async () => {
    const readme = await fs.readFile(path.join(dir, 'README.md'), 'utf8');
    for (const key of DATASET_FILE_KEYS) {
      const f = DATASET_FILES[key];
      const row = readme.split('\n').find((l) => l.startsWith(`| ${f.dir}/${f.file} |`));
      expect(row, `README row for ${f.dir}/${f.file}`).toBeDefined();
      expect(row).toContain(`| ${f.sha256} |`);
      expect(row).toContain(`| ${fmt(f.bytes)} |`);
      expect(row).toContain(`| ${fmt(f.examples)} |`);
      expect(readme).toContain(`\n## ${f.readmeSection}\n`);
      const prov = await fs.readFile(path.join(dir, f.dir, 'PROVENANCE.md'), 'utf8');
      const provRow = prov.split('\n').find((l) => l.startsWith(`| ${f.file} |`));
      expect(provRow).toContain(f.sha256);
      expect(provRow).toContain(fmt(f.bytes));
      const manifest = JSON.parse(await fs.readFile(path.join(dir, f.dir, 'manifest.json'), 'utf8'));
      expect(manifest.files.find((m: { file: string }) => m.file === f.file)).toMatchObject({
        sha256: f.sha256,
        bytes: f.bytes,
        examples: f.examples,
      });
    }
    expect(readme).toContain('\n## Countdown\n');
  });

  it('every shipped file has the recorded sha256 and size', async () => {
    for (const key of DATASET_FILE_KEYS) {
      const { check } = await readDatasetFile(key);
      expect(check.changed).toBe(false);
      expect(check.bytes).toBe(DATASET_FILES[key].bytes);
    }
  });
});
