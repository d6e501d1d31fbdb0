/**
 * Telepath's lint (ESLint flat config): the dependency directions of docs/contributing.md §3 and the
 * house rules a machine can check. Run it per project with `npx nx run-many -t lint` (each
 * project's `lint` script is `eslint .`), or on any path with `npx eslint <path>`.
 *
 *   - @nx/enforce-module-boundaries: the `type:*` tags in each package.json (nx.tags) decide which
 *     workspace packages a file may import (tools/eslint/dependency-directions.js); a relative
 *     import into another package is an error; a third-party import must be declared in the
 *     package's package.json or the root one (banTransitiveDependencies).
 *   - @nx/dependency-checks on each package.json: every package its source files import is declared.
 *   - typescript-eslint parses TypeScript; its no-restricted-imports bans deep imports (only "." and
 *     "./testing" are public) and no-require-imports keeps imports visible to the checks above.
 *   - ESLint's own rules: no Math.random (draw from a seeded Rng), no synchronous tensor read
 *     (dataSync, arraySync, bufferSync, print: they fail on webgpu) outside tests, test helpers and
 *     the native backend package, at most 400 lines per source file
 *     (tests exempt), and no import() of a computed name outside the one place that loads optional
 *     backends by name (such an import hides an edge from every check and from the nx graph).
 *   - telepath/package-json (tools/eslint/package-json-rule.js): one `type:*` tag per package and
 *     declared workspace dependencies that follow the directions.
 * Paths are globs, so moving files inside a package needs no change here.
 */
import nx from '@nx/eslint-plugin';
import { createProjectGraphAsync } from '@nx/devkit';
import tseslint from 'typescript-eslint';
import jsoncParser from 'jsonc-eslint-parser';
import { DEP_CONSTRAINTS } from './tools/eslint/dependency-directions.js';
import { packageJsonRule } from './tools/eslint/package-json-rule.js';

// @nx/enforce-module-boundaries reads nx's cached project graph and silently skips itself when there
// is none (a fresh clone running `npx eslint` directly). Under nx (`nx run-many -t lint`) the graph
// is already computed; otherwise compute it here, so the boundary rule can never be skipped.
if (!process.env.NX_TASK_TARGET_PROJECT) await createProjectGraphAsync({ exitOnError: true });

const SOURCE = ['**/*.ts', '**/*.mts', '**/*.tsx', '**/*.js', '**/*.mjs'];
const TESTS = ['**/*.test.ts', '**/__fixtures__/**'];

const MATH_RANDOM = {
  object: 'Math',
  property: 'random',
  message: 'Math.random is banned; draw from a seeded Rng (docs/contributing.md §7 rule 5).',
};
/**
 * Synchronous tensor reads fail on webgpu's GPU-resident tensors ("OffscreenCanvas is not defined")
 * and stall any GPU backend: training, generation, evaluation, traces and analysis read with
 * `await t.data()` / `t.array()`, batched (core's readScalars). Tests, test helpers and the native
 * backend (a CPU backend reading its own data) may read synchronously.
 */
const SYNC_READS = ['dataSync', 'arraySync', 'bufferSync', 'print'].map((property) => ({
  property,
  message: `Synchronous tensor read .${property}() fails on webgpu; read with await t.data() / t.array() (batched: core's readScalars).`,
}));

/** @nx/enforce-module-boundaries with the shared options; `extra` adds to them for some files. */
function boundaries(extra = {}) {
  // No bundler splits code here, so a package imported both statically and with import() is fine:
  // the lazy-loading check is for code-split front ends.
  return [
    'error',
    {
      depConstraints: DEP_CONSTRAINTS,
      banTransitiveDependencies: true,
      checkDynamicDependenciesExceptions: ['@telepath/*'],
      ...extra,
    },
  ];
}

export default [
  {
    // What .gitignore ignores (outputs, caches, runs), and the data and docs folders.
    ignores: [
      '**/node_modules/**',
      '**/build/**',
      '**/dist/**',
      '**/runs/**',
      '**/.nx/**',
      '**/.bench/**',
      '**/.cache/**',
      '**/models/**',
      '**/tmp/**',
      'datasets/**',
      'docs/**',
    ],
  },
  {
    files: SOURCE,
    languageOptions: { parser: tseslint.parser, ecmaVersion: 'latest', sourceType: 'module' },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    plugins: { '@nx': nx, '@typescript-eslint': tseslint.plugin },
    rules: {
      '@nx/enforce-module-boundaries': boundaries(),
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^@telepath/[^/]+/(?!testing$).+',
              message: 'Deep import: only "@telepath/<package>" and "@telepath/<package>/testing" are public.',
            },
          ],
        },
      ],
      '@typescript-eslint/no-require-imports': 'error',
      '@typescript-eslint/no-explicit-any': 'error',
      'no-restricted-properties': ['error', MATH_RANDOM, ...SYNC_READS],
      'no-restricted-syntax': [
        'error',
        {
          selector: 'ImportExpression > :not(Literal, TemplateLiteral[expressions.length=0]).source',
          message:
            'import() of a computed name hides a dependency from lint and the nx graph; import a literal package name.',
        },
      ],
      'max-lines': ['error', { max: 400, skipBlankLines: false, skipComments: false }],
    },
  },
  { files: TESTS, rules: { 'max-lines': 'off' } },
  {
    files: [...TESTS, '**/src/testing.ts', 'packages/backend-native/**'],
    rules: { 'no-restricted-properties': ['error', MATH_RANDOM] },
  },
  // Benchmarks and command-line entry points outside src/ use their own package's public entry, as a
  // user would; inside src/ a file imports its package's other files relatively.
  {
    files: ['**/bench/**', '**/bin/**'],
    rules: { '@nx/enforce-module-boundaries': boundaries({ allowCircularSelfDependency: true }) },
  },
  // Each package's vitest config re-exports the one shared config at the root.
  {
    files: ['**/vitest.config.ts'],
    rules: { '@nx/enforce-module-boundaries': boundaries({ allow: ['../../vitest.shared.js'] }) },
  },
  {
    files: ['**/package.json'],
    languageOptions: { parser: jsoncParser },
    plugins: { '@nx': nx, telepath: { rules: { 'package-json': packageJsonRule } } },
    rules: {
      'telepath/package-json': 'error',
      '@nx/dependency-checks': [
        'error',
        {
          buildTargets: ['typecheck'],
          checkMissingDependencies: true,
          checkObsoleteDependencies: false,
          checkVersionMismatches: false,
          // Tests, fixtures, benchmarks and the ./testing entry (imported by tests only) may use dev dependencies.
          ignoredFiles: [
            '**/*.test.ts',
            '**/__fixtures__/**',
            '**/vitest.config.ts',
            '**/bench/**',
            '**/src/testing.ts',
          ],
        },
      ],
    },
  },
];
