/**
 * Executes every notebook in docs/notebooks headlessly on the tslab kernel and fails on any cell
 * error (a type error included). Usage: `npm run notebooks [-- name ...]` in apps/notebooks, or
 * `npm run notebooks -w @telepath/notebooks` from the root. Recipe: docs/engineering-notes.md §11.
 *  1. Checks Node ≥ 20.19 (the kernel `require()`s ESM-only packages such as arquero) and a
 *     Python with nbconvert/nbclient/jupyter_client (Debian: jupyter-nbconvert jupyter-client
 *     python3-nbclient). Without Jupyter the run is skipped with a message, or fails when CI is set.
 *  2. Writes the workspace shims (notebook-shims.ts) so the kernel can import @telepath/* packages.
 *  3. Runs `python3 -m nbconvert --execute` per notebook with JUPYTER_PATH at the kernelspec kept
 *     in apps/notebooks/jupyter; executed copies go to apps/notebooks/out/ (gitignored), and each
 *     notebook gets TELEPATH_NOTEBOOK_OUT = out/<name>/ for the files it writes.
 *  4. On a failure, reruns that notebook with --allow-errors and prints the cells' error output
 *     (nbconvert's own message is only "<Error>:"), then exits 1.
 * Writes .vitest-results.json (one "test" per notebook) for the root test summary.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeNotebookShims } from './notebook-shims.js';

const APP = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const ROOT = resolve(APP, '../..');
const NOTEBOOKS = join(ROOT, 'docs', 'notebooks');
const OUT = join(APP, 'out');
const KERNELS = join(APP, 'jupyter');
const APT = 'jupyter-nbconvert jupyter-client python3-nbclient';
const CELL_TIMEOUT_S = 600;

interface Outcome {
  name: string;
  ok: boolean;
  seconds: number;
}

function results(outcomes: Outcome[], skipped: number): void {
  const passed = outcomes.filter((o) => o.ok).length;
  const failed = outcomes.length - passed;
  writeFileSync(
    join(APP, '.vitest-results.json'),
    `${JSON.stringify({ numPassedTests: passed, numFailedTests: failed, numPendingTests: skipped, numTodoTests: 0, numTotalTests: outcomes.length + skipped, success: failed === 0 })}\n`,
  );
}

function findPython(): string | undefined {
  const candidates = [process.env.TELEPATH_JUPYTER_PYTHON, '/usr/bin/python3', 'python3'].filter(
    (c): c is string => !!c,
  );
  return candidates.find(
    (py) => spawnSync(py, ['-c', 'import nbconvert, nbclient, jupyter_client'], { stdio: 'ignore' }).status === 0,
  );
}

function nodeSupportsRequireEsm(): boolean {
  const [major, minor] = process.versions.node.split('.').map(Number);
  return major > 22 || (major === 22 && minor >= 12) || (major === 20 && minor >= 19);
}

/** Error text a failed run left in the cells: stderr streams and error outputs. */
function cellErrors(executed: string): string[] {
  const nb = JSON.parse(readFileSync(executed, 'utf8')) as {
    cells: {
      cell_type: string;
      source: string | string[];
      outputs?: {
        output_type: string;
        name?: string;
        text?: string | string[];
        ename?: string;
        evalue?: string;
        traceback?: string[];
      }[];
    }[];
  };
  const text = (t: string | string[] | undefined) => (Array.isArray(t) ? t.join('') : (t ?? ''));
  const out: string[] = [];
  nb.cells.forEach((c, i) => {
    for (const o of c.outputs ?? []) {
      const msg =
        o.output_type === 'error'
          ? `${o.ename}: ${o.evalue}\n${(o.traceback ?? []).join('\n')}`
          : o.output_type === 'stream' && o.name === 'stderr'
            ? text(o.text)
            : '';
      if (msg.trim())
        out.push(
          `cell ${i + 1}:\n  ${text(c.source).split('\n').slice(0, 3).join('\n  ')}\n  → ${msg.trim().split('\n').join('\n    ')}`,
        );
    }
  });
  return out;
}

function execute(
  py: string,
  notebook: string,
  env: NodeJS.ProcessEnv,
  allowErrors: boolean,
  output: string,
): { status: number | null; stderr: string } {
  const args = [
    '-m',
    'nbconvert',
    '--to',
    'notebook',
    '--execute',
    notebook,
    '--output-dir',
    OUT,
    '--output',
    output,
    `--ExecutePreprocessor.timeout=${CELL_TIMEOUT_S}`,
    '--ExecutePreprocessor.kernel_name=tslab',
  ];
  if (allowErrors) args.push('--allow-errors');
  const r = spawnSync(py, args, { cwd: NOTEBOOKS, env, encoding: 'utf8' });
  return { status: r.status, stderr: r.stderr ?? '' };
}

function main(): number {
  const only = process.argv.slice(2).filter((a) => !a.startsWith('-'));
  const all = readdirSync(NOTEBOOKS)
    .filter((f) => f.endsWith('.ipynb'))
    .sort();
  const notebooks = only.length ? all.filter((f) => only.some((o) => f.includes(o))) : all;
  if (notebooks.length === 0)
    throw new Error(`no notebooks matched in ${NOTEBOOKS} (have: ${all.join(', ') || 'none'})`);
  if (!nodeSupportsRequireEsm())
    throw new Error(
      `notebooks need Node ≥ 20.19 or ≥ 22.12 (require of ESM packages in the CommonJS kernel); this is ${process.version}`,
    );
  const py = findPython();
  if (!py) {
    const msg = `notebooks: no Python with nbconvert, nbclient and jupyter_client found (tried $TELEPATH_JUPYTER_PYTHON, /usr/bin/python3, python3); install Debian packages: apt-get install -y ${APT}`;
    if (process.env.CI) throw new Error(msg);
    console.warn(`${msg}\nnotebooks: skipped ${notebooks.length} notebook(s) (set CI=1 to make this an error)`);
    results([], notebooks.length);
    return 0;
  }
  const shims = writeNotebookShims(ROOT, NOTEBOOKS, join(APP, 'package.json'));
  console.log(`notebooks: kernel imports ${shims.join(', ')} through shims in docs/notebooks/node_modules`);
  mkdirSync(OUT, { recursive: true });
  const runtime = mkdtempSync(join(tmpdir(), 'telepath-jupyter-'));
  const outcomes: Outcome[] = [];
  try {
    for (const nb of notebooks) {
      const name = basename(nb, '.ipynb');
      const outDir = join(OUT, name);
      rmSync(outDir, { recursive: true, force: true });
      mkdirSync(outDir, { recursive: true });
      const env = {
        ...process.env,
        JUPYTER_PATH: KERNELS,
        JUPYTER_RUNTIME_DIR: runtime,
        TELEPATH_NOTEBOOK_OUT: outDir,
      };
      const t = performance.now();
      const r = execute(py, nb, env, false, `${name}.ipynb`);
      const seconds = (performance.now() - t) / 1000;
      outcomes.push({ name, ok: r.status === 0, seconds });
      if (r.status === 0) {
        console.log(`notebooks: ✓ ${nb} (${seconds.toFixed(1)} s) → ${join('apps/notebooks/out', `${name}.ipynb`)}`);
        continue;
      }
      console.error(
        `notebooks: ✗ ${nb} (${seconds.toFixed(1)} s), nbconvert exit ${r.status}\n${r.stderr.trim().split('\n').slice(-8).join('\n')}`,
      );
      const again = execute(py, nb, env, true, `${name}.errors.ipynb`);
      const errors = again.status === 0 ? cellErrors(join(OUT, `${name}.errors.ipynb`)) : [];
      console.error(
        errors.length
          ? `notebooks: cell errors in ${nb}:\n${errors.join('\n')}`
          : `notebooks: no cell error text recovered (rerun exit ${again.status})`,
      );
    }
  } finally {
    rmSync(runtime, { recursive: true, force: true });
  }
  results(outcomes, 0);
  const failed = outcomes.filter((o) => !o.ok);
  console.log(
    `notebooks: ${outcomes.length - failed.length} passed, ${failed.length} failed, ${outcomes.reduce((a, o) => a + o.seconds, 0).toFixed(1)} s`,
  );
  return failed.length ? 1 : 0;
}

try {
  process.exitCode = main();
} catch (e) {
  console.error(`notebooks: ${(e as Error).message}`);
  if (!existsSync(join(APP, '.vitest-results.json'))) results([], 0);
  process.exitCode = 1;
}
