/**
 * Telepath's lint: the dependency directions of docs/contributing.md §3 and the house rules that a
 * machine can check. Usage: `tsx tools/lint.ts [package-dir ...]` (default: every workspace
 * package). Exits 1 listing each violation as file:line: message.
 *
 *   type:core     → no workspace package
 *   type:backend  → no workspace package (a TF.js backend; core loads it by name, optionally)
 *   type:tasks    → core
 *   type:method   → core (never another method, tasks, analysis or an app)
 *   type:analysis → core
 *   type:app      → anything
 * Also: imports only by package name and only "." or "./testing" (no deep imports), relative
 * imports stay inside the package, workspace imports are declared in package.json, no
 * Math.random, no synchronous tensor read outside tests, test helpers and backend packages, and
 * no source file over 400 lines.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve, dirname } from 'node:path';

const ROOT = resolve(dirname(new URL(import.meta.url).pathname), '..');
const ALLOWED: Record<string, string[] | '*'> = {
  'type:core': [],
  'type:backend': [],
  'type:tasks': ['type:core'],
  'type:method': ['type:core'],
  'type:analysis': ['type:core'],
  'type:app': '*',
};
const MAX_LINES = 400;
/**
 * Synchronous tensor reads fail on webgpu's GPU-resident tensors ("OffscreenCanvas is not
 * defined") and stall any GPU backend: training, generation, evaluation, traces and analysis read
 * with `await t.data()` / `t.array()`, batched (core's readScalars). Backend packages (CPU
 * backends reading their own data), tests and test helpers (testing.ts) may read synchronously; a
 * read that never sees a GPU tensor is marked `lint-allow-sync-read` with the reason.
 */
const SYNC_READ = /\.(dataSync|arraySync|bufferSync|print)\s*\(/;

interface Pkg { dir: string; name: string; tag: string; declared: Set<string> }

function readPkg(dir: string): Pkg {
  const json = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  const tags: string[] = json.nx?.tags ?? [];
  const tag = tags.find((t) => t.startsWith('type:'));
  if (!tag || !(tag in ALLOWED)) throw new Error(`${join(dir, 'package.json')}: nx.tags must hold one of ${Object.keys(ALLOWED).join(', ')}`);
  const declared = new Set([...Object.keys(json.dependencies ?? {}), ...Object.keys(json.devDependencies ?? {}), ...Object.keys(json.peerDependencies ?? {})]);
  return { dir, name: json.name, tag, declared };
}

function workspacePackages(): Pkg[] {
  const out: Pkg[] = [];
  for (const group of ['packages', 'apps']) {
    const base = join(ROOT, group);
    let entries: string[] = [];
    try {
      entries = readdirSync(base);
    } catch {
      continue;
    }
    for (const e of entries) {
      try {
        statSync(join(base, e, 'package.json'));
        out.push(readPkg(join(base, e)));
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      }
    }
  }
  return out;
}

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (e.name === 'node_modules' || e.name === 'build' || e.name === 'dist' || e.name.startsWith('.')) continue;
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (/\.(ts|mts|tsx)$/.test(e.name)) out.push(p);
    }
  };
  walk(dir);
  return out;
}

const IMPORT = /(?:^|[^\w.])(?:import|export)\s[^'"`;]*?from\s*['"]([^'"]+)['"]|(?:^|[^\w.])import\s*\(\s*['"]([^'"]+)['"]\s*\)|(?:^|[^\w.])import\s+['"]([^'"]+)['"]/g;

function lintPackage(pkg: Pkg, all: Map<string, Pkg>): string[] {
  const problems: string[] = [];
  const allowed = ALLOWED[pkg.tag];
  const checkTarget = (where: string, target: Pkg) => {
    if (target.name === pkg.name) return;
    if (allowed !== '*' && !allowed.includes(target.tag)) {
      problems.push(`${where}: ${pkg.name} (${pkg.tag}) must not depend on ${target.name} (${target.tag}); allowed: ${allowed.length ? allowed.join(', ') : 'no workspace package'}`);
    }
  };
  for (const dep of pkg.declared) {
    const target = all.get(dep);
    if (target) checkTarget(`${relative(ROOT, join(pkg.dir, 'package.json'))}`, target);
  }
  for (const file of sourceFiles(pkg.dir)) {
    const rel = relative(ROOT, file);
    const text = readFileSync(file, 'utf8');
    const lines = text.split('\n');
    const isTest = /\.test\.ts$/.test(file);
    if (!isTest && lines.length > MAX_LINES) problems.push(`${rel}: ${lines.length} lines; the house limit is ${MAX_LINES} (split the file)`);
    const syncReadsAllowed = isTest || pkg.tag === 'type:backend' || /[/\\]testing\.ts$/.test(file);
    lines.forEach((line, i) => {
      if (/\bMath\.random\s*\(/.test(line) && !/lint-allow-math-random/.test(line)) problems.push(`${rel}:${i + 1}: Math.random is banned; draw from a seeded Rng`);
      const sync = SYNC_READ.exec(line);
      if (sync && !syncReadsAllowed && !/lint-allow-sync-read/.test(line)) problems.push(`${rel}:${i + 1}: synchronous tensor read .${sync[1]}() fails on webgpu; read with await t.data() / t.array() (batched: core's readScalars)`);
    });
    for (const m of text.matchAll(IMPORT)) {
      const spec = m[1] ?? m[2] ?? m[3];
      const line = text.slice(0, m.index).split('\n').length;
      const where = `${rel}:${line}`;
      if (spec.startsWith('.')) {
        const target = resolve(dirname(file), spec);
        const sharedConfig = /vitest\.config\.ts$/.test(file) && target === join(ROOT, 'vitest.shared.js');
        if (!target.startsWith(pkg.dir + '/') && !sharedConfig) problems.push(`${where}: relative import "${spec}" leaves the package; import by package name`);
        continue;
      }
      const wm = /^(@telepath\/[^/]+)(\/.*)?$/.exec(spec);
      if (!wm) continue;
      const [, name, sub] = wm;
      if (sub && sub !== '/testing') problems.push(`${where}: deep import "${spec}"; only "${name}" and "${name}/testing" are public`);
      const target = all.get(name);
      if (!target) {
        problems.push(`${where}: unknown workspace package ${name}`);
        continue;
      }
      if (name !== pkg.name && !pkg.declared.has(name)) problems.push(`${where}: ${name} is imported but not declared in ${relative(ROOT, join(pkg.dir, 'package.json'))}`);
      checkTarget(where, target);
    }
  }
  return problems;
}

function main(): void {
  const all = new Map(workspacePackages().map((p) => [p.name, p]));
  const args = process.argv.slice(2);
  const targets = args.length ? args.map((a) => readPkg(resolve(ROOT, a))) : [...all.values()];
  const problems = targets.flatMap((p) => lintPackage(p, all));
  if (problems.length) {
    console.error(problems.join('\n'));
    console.error(`\n${problems.length} lint problem${problems.length === 1 ? '' : 's'}`);
    process.exit(1);
  }
  console.log(`lint: ${targets.map((t) => t.name).join(', ')} — ok`);
}

main();
