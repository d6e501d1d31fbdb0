/**
 * Checks that the lint (eslint.config.js) fails where it should: each probe is a file that breaks
 * one rule, linted in memory at a path inside a real package (nothing is written), and must be
 * reported by the named rule; the clean probes must pass, so a probe cannot fail for a wrong
 * reason (a parse error, a file outside every project). Exits 1 on any miss.
 * Usage: `tsx tools/lint-selftest.ts` (part of `npm run lint` and `npm test`).
 */
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { ESLint } from 'eslint';

const ROOT = resolve(dirname(new URL(import.meta.url).pathname), '..');

interface Probe {
  what: string;
  path: string;
  text: string;
  /** Rule ids that must all be reported; empty = the file must lint clean. */
  expect: string[];
}

interface PackageJson {
  dependencies: Record<string, string>;
  peerDependencies?: Record<string, string>;
  nx: { tags: string[] };
}
const cotPackageJson = JSON.parse(readFileSync(join(ROOT, 'packages/cot/package.json'), 'utf8')) as PackageJson;
const withJson = (edit: (json: PackageJson) => void) => {
  const json = structuredClone(cotPackageJson);
  edit(json);
  return JSON.stringify(json, null, 2);
};
const lines = (n: number) => Array.from({ length: n }, (_, i) => `export const x${i} = ${i};`).join('\n') + '\n';

const PROBES: Probe[] = [
  {
    what: 'clean method file',
    path: 'packages/cot/src/probe.ts',
    text: "import * as tf from '@tensorflow/tfjs-core';\nimport { Rng } from '@telepath/core';\nexport const probe = [tf, Rng];\n",
    expect: [],
  },
  { what: 'clean source file of 400 lines', path: 'packages/cot/src/probe.ts', text: lines(400), expect: [] },
  { what: 'clean test over 400 lines', path: 'packages/cot/src/probe.test.ts', text: lines(420), expect: [] },
  {
    what: 'clean package.json',
    path: 'packages/cot/package.json',
    text: JSON.stringify(cotPackageJson, null, 2),
    expect: [],
  },
  {
    what: 'a method imports another method',
    path: 'packages/cot/src/probe.ts',
    text: "import { colar } from '@telepath/colar';\nexport const m = colar;\n",
    expect: ['@nx/enforce-module-boundaries'],
  },
  {
    what: 'core imports a workspace package',
    path: 'packages/core/src/probe.ts',
    text: "import { gsm8k } from '@telepath/tasks';\nexport const t = gsm8k;\n",
    expect: ['@nx/enforce-module-boundaries'],
  },
  {
    what: 'tasks imports a method',
    path: 'packages/tasks/src/probe.ts',
    text: "import { cot } from '@telepath/cot';\nexport const m = cot;\n",
    expect: ['@nx/enforce-module-boundaries'],
  },
  {
    what: 'analysis imports an app',
    path: 'packages/analysis/src/probe.ts',
    text: "export * from '@telepath/lab';\n",
    expect: ['@nx/enforce-module-boundaries'],
  },
  {
    what: 'relative import into another package',
    path: 'packages/cot/src/probe.ts',
    text: "export * from '../../colar/src/index.js';\n",
    expect: ['@nx/enforce-module-boundaries'],
  },
  {
    what: 'undeclared third-party import',
    path: 'packages/cot/src/probe.ts',
    text: "import * as aq from 'arquero';\nexport const a = aq;\n",
    expect: ['@nx/enforce-module-boundaries'],
  },
  {
    what: 'import of an unknown workspace package',
    path: 'packages/cot/src/probe.ts',
    text: "export * from '@telepath/no-such-package';\n",
    expect: ['@nx/enforce-module-boundaries'],
  },
  {
    what: 'deep import',
    path: 'apps/lab/src/probe.ts',
    text: "export * from '@telepath/core/src/rng.js';\n",
    expect: ['@typescript-eslint/no-restricted-imports'],
  },
  {
    what: 'import() of a variable-held name',
    path: 'packages/cot/src/probe.ts',
    text: "const name = '@telepath/colar';\nexport const m = await import(name);\n",
    expect: ['no-restricted-syntax'],
  },
  {
    what: 'require()',
    path: 'packages/cot/src/probe.ts',
    text: "export const m = require('@telepath/colar');\n",
    expect: ['@typescript-eslint/no-require-imports'],
  },
  {
    what: 'Math.random',
    path: 'packages/cot/src/probe.ts',
    text: 'export const r = Math.random();\n',
    expect: ['no-restricted-properties'],
  },
  {
    what: 'synchronous tensor read in a method',
    path: 'packages/cot/src/probe.ts',
    text: "import * as tf from '@tensorflow/tfjs-core';\nexport const v = tf.scalar(1).dataSync();\n",
    expect: ['no-restricted-properties'],
  },
  {
    what: 'synchronous tensor read in the analysis',
    path: 'packages/analysis/src/probe.ts',
    text: "import * as tf from '@tensorflow/tfjs-core';\nexport const v = tf.scalar(1).arraySync();\n",
    expect: ['no-restricted-properties'],
  },
  {
    what: 'clean synchronous read in a test',
    path: 'packages/cot/src/probe.test.ts',
    text: "import * as tf from '@tensorflow/tfjs-core';\nexport const v = tf.scalar(1).dataSync();\n",
    expect: [],
  },
  { what: 'source file over 400 lines', path: 'packages/cot/src/probe.ts', text: lines(401), expect: ['max-lines'] },
  {
    what: 'package.json declares a forbidden workspace package',
    path: 'packages/cot/package.json',
    text: withJson((j) => {
      j.dependencies['@telepath/tasks'] = '*';
    }),
    expect: ['telepath/package-json'],
  },
  {
    what: 'package.json without a type tag',
    path: 'packages/cot/package.json',
    text: withJson((j) => {
      j.nx.tags = [];
    }),
    expect: ['telepath/package-json'],
  },
  {
    what: 'package.json misses an imported package',
    path: 'packages/cot/package.json',
    text: withJson((j) => {
      delete j.peerDependencies;
    }),
    expect: ['@nx/dependency-checks'],
  },
];

const eslint = new ESLint({ cwd: ROOT });
let passed = 0;
const failures: string[] = [];
for (const probe of PROBES) {
  const [result] = await eslint.lintText(probe.text, { filePath: join(ROOT, probe.path) });
  const reported = result.messages.map((m) => m.ruleId ?? `fatal: ${m.message}`);
  const ok = probe.expect.length === 0 ? reported.length === 0 : probe.expect.every((rule) => reported.includes(rule));
  if (ok) passed++;
  else
    failures.push(
      `${probe.what} (${probe.path}): expected ${probe.expect.join(', ') || 'no problem'}, got ${reported.join(', ') || 'no problem'}`,
    );
}
for (const f of failures) console.error(`lint-selftest: ${f}`);
console.log(`lint-selftest: ${passed} of ${PROBES.length} probes as expected`);
process.exit(failures.length ? 1 : 0);
